//! Accessor decoding with bounds checks on every byte range: dense data, normalised integers
//! and sparse substitution. Never panics on data from the file; errors name the accessor.

use gltf::accessor::{DataType, Dimensions};

use super::Source;

/// Upper bound on the components one accessor may decode to, so that a corrupt count cannot
/// exhaust memory (64 Mi components: far beyond any character).
const MAX_COMPONENTS: usize = 1 << 26;

/// Number of components per element.
pub(super) fn component_count(d: Dimensions) -> usize {
    match d {
        Dimensions::Scalar => 1,
        Dimensions::Vec2 => 2,
        Dimensions::Vec3 => 3,
        Dimensions::Vec4 | Dimensions::Mat2 => 4,
        Dimensions::Mat3 => 9,
        Dimensions::Mat4 => 16,
    }
}

/// Bytes per component.
pub(super) fn component_size(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

fn type_name(d: Dimensions) -> &'static str {
    match d {
        Dimensions::Scalar => "SCALAR",
        Dimensions::Vec2 => "VEC2",
        Dimensions::Vec3 => "VEC3",
        Dimensions::Vec4 => "VEC4",
        Dimensions::Mat2 => "MAT2",
        Dimensions::Mat3 => "MAT3",
        Dimensions::Mat4 => "MAT4",
    }
}

/// Reads one raw component (integers as their value, floats as stored). `bytes` has exactly
/// `component_size(t)` bytes.
fn raw_component(bytes: &[u8], t: DataType) -> f64 {
    let b = |i: usize| bytes.get(i).copied().unwrap_or(0);
    match t {
        DataType::I8 => f64::from(b(0) as i8),
        DataType::U8 => f64::from(b(0)),
        DataType::I16 => f64::from(i16::from_le_bytes([b(0), b(1)])),
        DataType::U16 => f64::from(u16::from_le_bytes([b(0), b(1)])),
        DataType::U32 => f64::from(u32::from_le_bytes([b(0), b(1), b(2), b(3)])),
        DataType::F32 => f64::from(f32::from_le_bytes([b(0), b(1), b(2), b(3)])),
    }
}

/// glTF's decoding of normalised integers (specification 3.11), in f32 as renderers do it.
fn normalise(v: f64, t: DataType) -> f32 {
    match t {
        DataType::I8 => (v as f32 / 127.0).max(-1.0),
        DataType::U8 => v as f32 / 255.0,
        DataType::I16 => (v as f32 / 32767.0).max(-1.0),
        DataType::U16 => v as f32 / 65535.0,
        DataType::U32 => v as f32 / 4_294_967_295.0,
        DataType::F32 => v as f32,
    }
}

/// An accessor's elements, flattened: `count * components` values.
pub(super) struct Decoded<T> {
    pub components: usize,
    pub values: Vec<T>,
}

impl<T: Copy> Decoded<T> {
    /// The number of elements.
    pub(super) fn count(&self) -> usize {
        self.values.len() / self.components.max(1)
    }
}

impl Decoded<f32> {
    /// Elements as fixed-size arrays (`N` must equal `components`; the caller checked the type).
    pub(super) fn arrays<const N: usize>(&self) -> Vec<[f32; N]> {
        self.values
            .chunks_exact(N)
            .map(|c| std::array::from_fn(|i| c[i]))
            .collect()
    }
}

impl Source<'_> {
    /// A byte range of a buffer view, bounds-checked against the view and the loaded buffer.
    pub(super) fn view_range(
        &self,
        view: &gltf::buffer::View,
        offset: usize,
        len: usize,
        what: &str,
    ) -> Result<&[u8], String> {
        let buffer = self
            .buffers
            .get(view.buffer().index())
            .ok_or_else(|| format!("{what}: buffer {} is missing", view.buffer().index()))?;
        let end_in_view = offset.checked_add(len).filter(|e| *e <= view.length());
        let start = view.offset().checked_add(offset);
        match (end_in_view, start) {
            (Some(_), Some(start)) if start + len <= buffer.len() => {
                Ok(&buffer[start..start + len])
            }
            (None, _) => Err(format!(
                "{what}: needs bytes {offset}..{} of buffer view {}, which is only {} bytes long",
                offset.saturating_add(len),
                view.index(),
                view.length()
            )),
            _ => Err(format!(
                "{what}: buffer view {} reaches past the end of buffer {} ({} bytes)",
                view.index(),
                view.buffer().index(),
                buffer.len()
            )),
        }
    }

    /// Decodes an accessor to raw component values (integers not normalised), with sparse
    /// substitution applied.
    fn raw(&self, accessor: &gltf::Accessor, what: &str) -> Result<Decoded<f64>, String> {
        let what = format!("accessor {} ({what})", accessor.index());
        let dims = accessor.dimensions();
        let t = accessor.data_type();
        let comps = component_count(dims);
        let csize = component_size(t);
        if matches!(dims, Dimensions::Mat2 | Dimensions::Mat3) && csize < 4 {
            return Err(format!(
                "{what}: {} matrices of {csize}-byte components are not supported",
                type_name(dims)
            ));
        }
        let count = accessor.count();
        let elem = comps * csize;
        let total = count
            .checked_mul(comps)
            .filter(|n| *n <= MAX_COMPONENTS)
            .ok_or_else(|| format!("{what}: {count} elements is more than this file can hold"))?;
        // The range is checked before the allocation, so that only bytes really in the file
        // size it (`layout::check` refused impossible accessors already; this stays safe alone).
        let mut dense = None;
        if let Some(view) = accessor.view() {
            let stride = view.stride().unwrap_or(elem);
            if stride < elem {
                return Err(format!(
                    "{what}: byte stride {stride} is smaller than the element size {elem}"
                ));
            }
            if count > 0 {
                let span = (count - 1)
                    .checked_mul(stride)
                    .and_then(|s| s.checked_add(elem))
                    .ok_or_else(|| format!("{what}: size overflows"))?;
                dense = Some((
                    self.view_range(&view, accessor.offset(), span, &what)?,
                    stride,
                ));
            }
        }
        let mut values = vec![0.0f64; total];
        if let Some((bytes, stride)) = dense {
            {
                for (i, out) in values.chunks_exact_mut(comps).enumerate() {
                    let e = &bytes[i * stride..i * stride + elem];
                    for (c, v) in out.iter_mut().enumerate() {
                        *v = raw_component(&e[c * csize..(c + 1) * csize], t);
                    }
                }
            }
        }
        if let Some(sparse) = accessor.sparse() {
            let n = sparse.count();
            let idx = sparse.indices();
            let isize = match idx.index_type() {
                gltf::accessor::sparse::IndexType::U8 => 1,
                gltf::accessor::sparse::IndexType::U16 => 2,
                gltf::accessor::sparse::IndexType::U32 => 4,
            };
            let ibytes = self.view_range(
                &idx.view(),
                idx.offset(),
                n.checked_mul(isize).ok_or("sparse count overflows")?,
                &format!("{what}, sparse indices"),
            )?;
            let vals = sparse.values();
            let vbytes = self.view_range(
                &vals.view(),
                vals.offset(),
                n.checked_mul(elem).ok_or("sparse count overflows")?,
                &format!("{what}, sparse values"),
            )?;
            for k in 0..n {
                let ib = &ibytes[k * isize..(k + 1) * isize];
                let target = match isize {
                    1 => usize::from(ib[0]),
                    2 => usize::from(u16::from_le_bytes([ib[0], ib[1]])),
                    _ => u32::from_le_bytes([ib[0], ib[1], ib[2], ib[3]]) as usize,
                };
                if target >= count {
                    return Err(format!(
                        "{what}: sparse index {k} is {target}, but the accessor has {count} elements"
                    ));
                }
                let e = &vbytes[k * elem..(k + 1) * elem];
                for c in 0..comps {
                    values[target * comps + c] = raw_component(&e[c * csize..(c + 1) * csize], t);
                }
            }
        }
        Ok(Decoded {
            components: comps,
            values,
        })
    }

    /// Decodes an accessor to floats: normalised integers per the specification, other integers
    /// by value. `types` lists the accepted element types.
    pub(super) fn floats(
        &self,
        accessor: &gltf::Accessor,
        what: &str,
        types: &[Dimensions],
    ) -> Result<Decoded<f32>, String> {
        check_type(accessor, what, types)?;
        let t = accessor.data_type();
        let normalized = accessor.normalized() || t == DataType::F32;
        let raw = self.raw(accessor, what)?;
        Ok(Decoded {
            components: raw.components,
            values: raw
                .values
                .into_iter()
                .map(|v| {
                    if normalized {
                        normalise(v, t)
                    } else {
                        v as f32
                    }
                })
                .collect(),
        })
    }

    /// Decodes an accessor of unsigned integers (indices, joint indices).
    pub(super) fn integers(
        &self,
        accessor: &gltf::Accessor,
        what: &str,
        types: &[Dimensions],
    ) -> Result<Decoded<u32>, String> {
        check_type(accessor, what, types)?;
        if !matches!(
            accessor.data_type(),
            DataType::U8 | DataType::U16 | DataType::U32
        ) || accessor.normalized()
        {
            return Err(format!(
                "accessor {} ({what}): must hold unsigned integers, found {:?}{}",
                accessor.index(),
                accessor.data_type(),
                if accessor.normalized() {
                    " (normalized)"
                } else {
                    ""
                }
            ));
        }
        let raw = self.raw(accessor, what)?;
        Ok(Decoded {
            components: raw.components,
            // Exact: the values were read from unsigned integers of at most 32 bits.
            values: raw.values.into_iter().map(|v| v as u32).collect(),
        })
    }
}

fn check_type(accessor: &gltf::Accessor, what: &str, types: &[Dimensions]) -> Result<(), String> {
    let d = accessor.dimensions();
    if types.contains(&d) {
        Ok(())
    } else {
        let expected: Vec<&str> = types.iter().map(|t| type_name(*t)).collect();
        Err(format!(
            "accessor {} ({what}): type is {}, expected {}",
            accessor.index(),
            type_name(d),
            expected.join(" or ")
        ))
    }
}
