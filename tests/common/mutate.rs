//! Mutations of the fuzz (tests/hostile/fuzz.rs): of bytes, of a JSON document's structure (glTF),
//! of a GLB's chunks and of a TOML document's structure and text. Each takes the generator,
//! so an input replays from its seed.

use super::Rng;

/// One random byte mutation: flipped bits, a hostile integer written over an aligned field,
/// bytes cut or inserted, or bytes copied from elsewhere in the input.
pub fn mutate_bytes(rng: &mut Rng, b: &mut Vec<u8>) {
    const HOSTILE: [u64; 8] = [
        0,
        1,
        0x7f,
        0xffff,
        0x8000_0000,
        0xffff_ffff,
        u64::MAX,
        1 << 40,
    ];
    if b.is_empty() {
        b.push(rng.next() as u8);
        return;
    }
    match rng.below(5) {
        0 => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
        }
        1 => {
            // Aligned 4- or 8-byte fields: where counts, offsets and indices live.
            let width = if rng.below(2) == 0 { 4 } else { 8 };
            let at = rng.below(b.len() / width) * width;
            let v = HOSTILE[rng.below(HOSTILE.len())].wrapping_add(rng.below(3) as u64);
            let bytes = v.to_le_bytes();
            let end = (at + width).min(b.len());
            b[at..end].copy_from_slice(&bytes[..end - at]);
        }
        2 => {
            let at = rng.below(b.len());
            let n = 1 + rng.below(64);
            b.drain(at..(at + n).min(b.len()));
        }
        3 => {
            let at = rng.below(b.len());
            let n = 1 + rng.below(64);
            let fill: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            b.splice(at..at, fill);
        }
        _ => {
            let (from, to, n) = (rng.below(b.len()), rng.below(b.len()), 1 + rng.below(32));
            let chunk: Vec<u8> = b[from..(from + n).min(b.len())].to_vec();
            let end = (to + chunk.len()).min(b.len());
            b[to..end].copy_from_slice(&chunk[..end - to]);
        }
    }
}

/// One step of a path into a JSON or TOML document.
#[derive(Clone, Debug)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// Values a hostile file puts where a number, a name or an index belongs.
pub fn hostile_json(rng: &mut Rng) -> serde_json::Value {
    use serde_json::json;
    let pool = [
        json!(0),
        json!(1),
        json!(2),
        json!(3),
        json!(-1),
        json!(255),
        json!(65535),
        json!(4_294_967_295u64),
        json!(9_007_199_254_740_993u64),
        json!(-9.2e18),
        json!(1e39),
        json!(0.5),
        json!(-0.0),
        json!(1e-40),
        json!(""),
        json!("x"),
        json!("../../etc/passwd"),
        json!("data:application/octet-stream;base64,AAAA"),
        json!(null),
        json!(true),
        json!([]),
        json!({}),
        json!([0, 0, 0]),
        json!([1e39, 0, 0, 1]),
        json!("CUBICSPLINE"),
        json!("STEP"),
        json!("MAT4"),
        json!(5126),
        json!(5121),
        json!(5125),
    ];
    pool[rng.below(pool.len())].clone()
}

pub fn json_paths(v: &serde_json::Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(at.clone());
    match v {
        serde_json::Value::Object(m) => {
            for (k, c) in m {
                at.push(Step::Key(k.clone()));
                json_paths(c, at, out);
                at.pop();
            }
        }
        serde_json::Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                at.push(Step::Index(i));
                json_paths(c, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

pub fn json_at<'a>(v: &'a mut serde_json::Value, path: &[Step]) -> &'a mut serde_json::Value {
    path.iter().fold(v, |v, s| match (s, v) {
        (Step::Key(k), serde_json::Value::Object(m)) => m.get_mut(k).expect("path exists"),
        (Step::Index(i), serde_json::Value::Array(a)) => &mut a[*i],
        _ => unreachable!("paths come from the document"),
    })
}

/// One structural mutation of a JSON document: a value replaced by a hostile one or by a
/// copy of another value in the document, a member or element removed, an element repeated,
/// or a number nudged (indices one past the end, counts doubled).
pub fn mutate_json(rng: &mut Rng, doc: &mut serde_json::Value) {
    let mut paths = Vec::new();
    json_paths(doc, &mut Vec::new(), &mut paths);
    let path = paths[rng.below(paths.len())].clone();
    let donor = json_at(doc, &paths[rng.below(paths.len())].clone()).clone();
    match rng.below(10) {
        0..=3 => *json_at(doc, &path) = hostile_json(rng),
        4 | 5 => *json_at(doc, &path) = donor,
        6 | 7 if !path.is_empty() => {
            let (last, parent) = path.split_last().expect("not the root");
            match (last, json_at(doc, parent)) {
                (Step::Key(k), serde_json::Value::Object(m)) => {
                    m.remove(k);
                }
                (Step::Index(i), serde_json::Value::Array(a)) => {
                    if rng.below(2) == 0 {
                        a.remove(*i);
                    } else {
                        let copy = a[*i].clone();
                        a.push(copy);
                    }
                }
                _ => {}
            }
        }
        _ => {
            let v = json_at(doc, &path);
            if let Some(n) = v.as_i64() {
                let nudged = [n + 1, n - 1, n * 2, n + 1000, -n][rng.below(5)];
                *v = serde_json::json!(nudged);
            } else if let Some(x) = v.as_f64() {
                *v = serde_json::json!([x * 1e20, -x, x + 1e-3, x * 0.0][rng.below(4)]);
            } else {
                *v = hostile_json(rng);
            }
        }
    }
}

/// The JSON and binary chunks of a GLB, or `None` for a `.gltf` (the whole file is JSON).
pub fn glb_chunks(b: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    if b.len() < 20 || &b[..4] != b"glTF" {
        return None;
    }
    let json_len = u32::from_le_bytes(b[12..16].try_into().ok()?) as usize;
    let json = b.get(20..20 + json_len)?.to_vec();
    let bin = b.get(20 + json_len + 8..).unwrap_or(&[]).to_vec();
    Some((json, bin))
}

/// A GLB of `json` and `bin` (each padded to 4 bytes, as the container asks).
pub fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let pad = |n: usize| n.div_ceil(4) * 4;
    let (jl, bl) = (pad(json.len()), pad(bin.len()));
    let total = 12 + 8 + jl + if bin.is_empty() { 0 } else { 8 + bl };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(jl as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json);
    out.resize(20 + jl, b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&(bl as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(bin);
        out.resize(total, 0);
    }
    out
}

/// One mutation of a glTF model (GLB or `.gltf`): mostly of its JSON's structure, sometimes
/// of its binary chunk's bytes (accessor data: NaN, joints out of range), rarely of the
/// container's bytes.
pub fn mutate_gltf(rng: &mut Rng, file: &[u8]) -> Vec<u8> {
    let (json, mut bin, is_glb) = match glb_chunks(file) {
        Some((j, b)) => (j, b, true),
        None => (file.to_vec(), Vec::new(), false),
    };
    let Ok(mut doc) = serde_json::from_slice::<serde_json::Value>(&json) else {
        let mut b = file.to_vec();
        mutate_bytes(rng, &mut b);
        return b;
    };
    match rng.below(10) {
        0 => {
            let mut b = file.to_vec();
            mutate_bytes(rng, &mut b);
            return b;
        }
        1 | 2 if !bin.is_empty() => {
            let len = bin.len();
            mutate_bytes(rng, &mut bin);
            // Keep the length, so the buffer's byteLength still holds and the data is read.
            bin.resize(len, 0);
        }
        _ => {
            for _ in 0..1 + rng.below(3) {
                mutate_json(rng, &mut doc);
            }
        }
    }
    let json = serde_json::to_vec(&doc).expect("a JSON value serialises");
    if is_glb { glb(&json, &bin) } else { json }
}

/// Values a hostile file puts in a TOML key; `names` are the strings of the document, so that
/// references (clips, states, parameters) are often valid.
pub fn hostile_toml(rng: &mut Rng, names: &[String]) -> toml::Value {
    use toml::Value as V;
    match rng.below(22) {
        0 => V::Integer(0),
        1 => V::Integer(-1),
        2 => V::Integer(3),
        3 => V::Integer(1 << 31),
        4 => V::Integer(i64::MAX),
        5 => V::Float(0.0),
        6 => V::Float(-1.0),
        7 => V::Float(1e39),
        8 => V::Float(3.4e38),
        9 => V::Float(f64::NAN),
        10 => V::Float(f64::INFINITY),
        11 => V::Float(1e-39),
        12 => V::Float(0.5),
        13 => V::String(String::new()),
        14 => V::Boolean(true),
        15 => V::Array(Vec::new()),
        16 => V::Array(vec![V::Float(1.0), V::Float(1e39)]),
        17 => V::Table(toml::Table::new()),
        18 => V::Datetime("1979-05-27T07:32:00Z".parse().expect("a date-time")),
        _ if !names.is_empty() => V::String(names[rng.below(names.len())].clone()),
        _ => V::String("x".into()),
    }
}

pub fn toml_paths(v: &toml::Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(at.clone());
    match v {
        toml::Value::Table(m) => {
            for (k, c) in m {
                at.push(Step::Key(k.clone()));
                toml_paths(c, at, out);
                at.pop();
            }
        }
        toml::Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                at.push(Step::Index(i));
                toml_paths(c, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

pub fn toml_at<'a>(v: &'a mut toml::Value, path: &[Step]) -> &'a mut toml::Value {
    path.iter().fold(v, |v, s| match (s, v) {
        (Step::Key(k), toml::Value::Table(m)) => m.get_mut(k).expect("path exists"),
        (Step::Index(i), toml::Value::Array(a)) => &mut a[*i],
        _ => unreachable!("paths come from the document"),
    })
}

pub fn toml_strings(v: &toml::Value, out: &mut Vec<String>) {
    match v {
        toml::Value::String(s) => out.push(s.clone()),
        toml::Value::Table(m) => {
            out.extend(m.keys().cloned());
            m.values().for_each(|c| toml_strings(c, out));
        }
        toml::Value::Array(a) => a.iter().for_each(|c| toml_strings(c, out)),
        _ => {}
    }
}

/// One mutation of a TOML file: mostly of its structure (a value replaced by a hostile one,
/// by a name from the file or by a copy of another value; a key removed; an element
/// repeated), sometimes of its text (a line cut or repeated, bytes changed).
pub fn mutate_toml(rng: &mut Rng, text: &str) -> String {
    let parsed = text.parse::<toml::Table>();
    let structural = rng.below(6) != 0;
    if let (true, Ok(table)) = (structural, parsed) {
        let mut doc = toml::Value::Table(table);
        let mut names = Vec::new();
        toml_strings(&doc, &mut names);
        for _ in 0..1 + rng.below(3) {
            let mut paths = Vec::new();
            toml_paths(&doc, &mut Vec::new(), &mut paths);
            let path = paths[rng.below(paths.len())].clone();
            let donor = toml_at(&mut doc, &paths[rng.below(paths.len())].clone()).clone();
            match rng.below(8) {
                0..=3 => *toml_at(&mut doc, &path) = hostile_toml(rng, &names),
                4 => *toml_at(&mut doc, &path) = donor,
                _ if !path.is_empty() => {
                    let (last, parent) = path.split_last().expect("not the root");
                    match (last, toml_at(&mut doc, parent)) {
                        (Step::Key(k), toml::Value::Table(m)) => {
                            m.remove(k);
                        }
                        (Step::Index(i), toml::Value::Array(a)) => {
                            let copy = a[*i].clone();
                            a.push(copy);
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        if let Ok(text) = toml::to_string(&doc) {
            return text;
        }
    }
    let mut lines: Vec<&str> = text.lines().collect();
    if lines.len() > 1 && rng.below(2) == 0 {
        let i = rng.below(lines.len());
        if rng.below(2) == 0 {
            lines.remove(i);
        } else {
            lines.insert(i, lines[rng.below(lines.len())]);
        }
        return lines.join("\n");
    }
    let mut b = text.as_bytes().to_vec();
    mutate_bytes(rng, &mut b);
    String::from_utf8_lossy(&b).into_owned()
}
