//! A minimal, deterministic glTF 2.0 binary writer for the generated mannequin: one buffer,
//! tightly packed, 4-byte aligned views, accessors with the min/max the specification requires.

use serde_json::{Value, json};

/// glTF component types.
const FLOAT: u32 = 5126;
const UNSIGNED_BYTE: u32 = 5121;
const UNSIGNED_SHORT: u32 = 5123;
/// Buffer view targets.
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// Collects buffer views and accessors into one binary buffer.
#[derive(Default)]
pub(super) struct Builder {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Builder {
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut v = json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }

    fn accessor(
        &mut self,
        view: usize,
        component: u32,
        count: usize,
        ty: &str,
        extra: Value,
    ) -> usize {
        let mut a =
            json!({"bufferView": view, "componentType": component, "count": count, "type": ty});
        if let (Some(a), Value::Object(e)) = (a.as_object_mut(), extra) {
            a.extend(e);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    /// Float elements of `N` components, with per-component min and max when `bounds`.
    pub fn floats<const N: usize>(
        &mut self,
        data: &[[f32; N]],
        ty: &str,
        target: Option<u32>,
        bounds: bool,
    ) -> usize {
        let bytes: Vec<u8> = data
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let view = self.view(&bytes, target);
        let extra = if bounds {
            let min: Vec<f32> = (0..N)
                .map(|i| data.iter().map(|d| d[i]).fold(f32::INFINITY, f32::min))
                .collect();
            let max: Vec<f32> = (0..N)
                .map(|i| data.iter().map(|d| d[i]).fold(f32::NEG_INFINITY, f32::max))
                .collect();
            json!({"min": min, "max": max})
        } else {
            json!({})
        };
        self.accessor(view, FLOAT, data.len(), ty, extra)
    }

    /// Vertex attribute of four unsigned bytes (joint indices, or normalised weights).
    pub fn bytes4(&mut self, data: &[[u8; 4]], normalized: bool) -> usize {
        let bytes: Vec<u8> = data.iter().flatten().copied().collect();
        let view = self.view(&bytes, Some(ARRAY_BUFFER));
        let extra = if normalized {
            json!({"normalized": true})
        } else {
            json!({})
        };
        self.accessor(view, UNSIGNED_BYTE, data.len(), "VEC4", extra)
    }

    /// Triangle indices as unsigned shorts.
    pub fn indices(&mut self, data: &[u16]) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, Some(ELEMENT_ARRAY_BUFFER));
        self.accessor(view, UNSIGNED_SHORT, data.len(), "SCALAR", json!({}))
    }

    /// Packs the JSON (given everything but buffers, views and accessors) and the binary chunk.
    pub fn finish(mut self, mut root: Value) -> Vec<u8> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        root["buffers"] = json!([{"byteLength": self.bin.len()}]);
        root["bufferViews"] = Value::Array(self.views);
        root["accessors"] = Value::Array(self.accessors);
        // serde_json writes object keys sorted (no preserve_order feature), so output is stable.
        let mut text = serde_json::to_vec(&root).unwrap_or_default();
        while !text.len().is_multiple_of(4) {
            text.push(b' ');
        }
        let total = 12 + 8 + text.len() + 8 + self.bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&text);
        out.extend_from_slice(&(self.bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&self.bin);
        out
    }
}
