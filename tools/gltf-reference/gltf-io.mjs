// Reading a .glb / .gltf into { json, bin } and rebuilding it as a single self-contained GLB
// that three.js's GLTFLoader can parse in Node (no network, no DOM, no images).
import fs from 'node:fs';
import path from 'node:path';

export class UsageError extends Error {}

const GLB_MAGIC = 0x46546c67; // 'glTF'
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

/** Parses a GLB container. Returns { json, bin } (bin may be null). */
export function parseGlb(buf, file) {
	if (buf.length < 20 || buf.readUInt32LE(0) !== GLB_MAGIC) throw new Error(`${file}: not a GLB file`);
	const version = buf.readUInt32LE(4);
	if (version !== 2) throw new Error(`${file}: GLB version ${version}, only 2 is supported`);
	const total = Math.min(buf.readUInt32LE(8), buf.length);
	let off = 12;
	let json = null;
	let bin = null;
	while (off + 8 <= total) {
		const len = buf.readUInt32LE(off);
		const type = buf.readUInt32LE(off + 4);
		const data = buf.subarray(off + 8, off + 8 + len);
		if (data.length !== len) throw new Error(`${file}: truncated GLB chunk`);
		if (type === CHUNK_JSON && json === null) json = JSON.parse(new TextDecoder().decode(data));
		else if (type === CHUNK_BIN && bin === null) bin = data;
		off += 8 + len;
	}
	if (json === null) throw new Error(`${file}: GLB has no JSON chunk`);
	return { json, bin };
}

/** Reads FILE (.glb or .gltf). Returns { json, buffers: Buffer[] } with every buffer resolved. */
export function readGltf(file) {
	if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new UsageError(`no such file: ${file}`);
	const raw = fs.readFileSync(file);
	let json;
	let bin = null;
	if (raw.length >= 4 && raw.readUInt32LE(0) === GLB_MAGIC) ({ json, bin } = parseGlb(raw, file));
	else json = JSON.parse(raw.toString('utf8'));
	const dir = path.dirname(file);
	const buffers = (json.buffers || []).map((b, i) => {
		let data;
		if (b.uri === undefined) {
			if (i !== 0 || bin === null) throw new Error(`${file}: buffer ${i} has no uri and there is no GLB BIN chunk`);
			data = bin;
		} else if (b.uri.startsWith('data:')) {
			const comma = b.uri.indexOf(',');
			const meta = b.uri.slice(5, comma);
			const payload = b.uri.slice(comma + 1);
			data = meta.endsWith(';base64') ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'latin1');
		} else {
			const p = path.join(dir, decodeURIComponent(b.uri));
			if (!fs.existsSync(p)) throw new UsageError(`${file}: buffer ${i}: missing external file ${p}`);
			data = fs.readFileSync(p);
		}
		if (data.length < b.byteLength) throw new Error(`${file}: buffer ${i} is ${data.length} bytes, byteLength says ${b.byteLength}`);
		return data;
	});
	return { json, buffers };
}

const TEXTURE_EXT = /texture|^KHR_materials_|^EXT_materials_/i;

/**
 * Returns a deep copy of json whose buffers are merged into one (buffer 0, no uri) and with all
 * images, textures, samplers and materials removed (they cannot load in Node and do not affect
 * geometry or animation), plus the merged BIN data.
 */
export function prepareForThree(json, buffers) {
	const j = structuredClone(json);
	// Merge buffers into a single BIN, 8-byte aligned.
	const offsets = [];
	let total = 0;
	for (const b of buffers) {
		total = (total + 7) & ~7;
		offsets.push(total);
		total += b.length;
	}
	const bin = Buffer.alloc((total + 3) & ~3);
	buffers.forEach((b, i) => b.copy(bin, offsets[i]));
	for (const bv of j.bufferViews || []) {
		bv.byteOffset = (bv.byteOffset || 0) + offsets[bv.buffer];
		bv.buffer = 0;
	}
	j.buffers = buffers.length ? [{ byteLength: bin.length }] : undefined;
	if (!j.buffers) delete j.buffers;

	delete j.images;
	delete j.textures;
	delete j.samplers;
	delete j.materials;
	for (const m of j.meshes || []) {
		for (const p of m.primitives || []) {
			delete p.material;
			if (p.extensions) delete p.extensions.KHR_materials_variants;
		}
	}
	if (j.extensions) delete j.extensions.KHR_materials_variants;
	for (const key of ['extensionsUsed', 'extensionsRequired']) {
		if (j[key]) j[key] = j[key].filter((e) => !TEXTURE_EXT.test(e));
	}
	return { json: j, bin };
}

/** Builds a GLB ArrayBuffer from json + bin. */
export function buildGlb(json, bin) {
	const jsonBytes = Buffer.from(JSON.stringify(json), 'utf8');
	const jsonLen = (jsonBytes.length + 3) & ~3;
	const binLen = bin && bin.length ? (bin.length + 3) & ~3 : 0;
	const total = 12 + 8 + jsonLen + (binLen ? 8 + binLen : 0);
	const out = Buffer.alloc(total, 0);
	out.writeUInt32LE(GLB_MAGIC, 0);
	out.writeUInt32LE(2, 4);
	out.writeUInt32LE(total, 8);
	out.writeUInt32LE(jsonLen, 12);
	out.writeUInt32LE(CHUNK_JSON, 16);
	out.fill(0x20, 20, 20 + jsonLen);
	jsonBytes.copy(out, 20);
	if (binLen) {
		const o = 20 + jsonLen;
		out.writeUInt32LE(binLen, o);
		out.writeUInt32LE(CHUNK_BIN, o + 4);
		bin.copy(out, o + 8);
	}
	return out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
}
