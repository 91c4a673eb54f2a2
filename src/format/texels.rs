//! [`Texels`]: the bone-matrix texel data of a baked file, in place, in the file's format (the
//! reader hands it out; validation checks its values).

/// The texel data in place, in the file's format.
#[derive(Clone, Copy, Debug)]
pub enum Texels<'a> {
    /// `Rgba32Float` texels.
    F32(&'a [[f32; 4]]),
    /// `Rgba16Float` texels as raw binary16 bits.
    F16(&'a [[u16; 4]]),
}

impl<'a> Texels<'a> {
    /// Number of texels.
    pub fn len(&self) -> usize {
        match self {
            Self::F32(t) => t.len(),
            Self::F16(t) => t.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Texel `i` as f32 (`i < len`).
    #[inline]
    pub fn get(&self, i: usize) -> [f32; 4] {
        match self {
            Self::F32(t) => t[i],
            Self::F16(t) => t[i].map(|b| half::f16::from_bits(b).to_f32()),
        }
    }

    /// The raw bytes, as stored.
    pub fn bytes(&self) -> &'a [u8] {
        match self {
            Self::F32(t) => bytemuck::cast_slice(t),
            Self::F16(t) => bytemuck::cast_slice(t),
        }
    }
}
