// Builds tiny glTF files (JSON with an embedded data: buffer) for the tests.
const TYPES = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 };
const FLOAT = 5126;
const UBYTE = 5121;

export class GltfBuilder {
	constructor() {
		this.chunks = [];
		this.length = 0;
		this.json = {
			asset: { version: '2.0', generator: 'throng gltf-reference tests' },
			scene: 0,
			scenes: [{ nodes: [] }],
			nodes: [],
			meshes: [],
			skins: [],
			animations: [],
			accessors: [],
			bufferViews: [],
			buffers: [],
		};
	}

	/** Adds an accessor; values is a flat array. Returns the accessor index. */
	accessor(values, type, { componentType = FLOAT, minmax = false, normalized = false } = {}) {
		const n = TYPES[type];
		const Arr = componentType === UBYTE ? Uint8Array : Float32Array;
		const data = new Arr(values);
		const pad = (4 - (this.length % 4)) % 4;
		if (pad) {
			this.chunks.push(new Uint8Array(pad));
			this.length += pad;
		}
		const bytes = new Uint8Array(data.buffer);
		this.json.bufferViews.push({ buffer: 0, byteOffset: this.length, byteLength: bytes.length });
		this.chunks.push(bytes);
		this.length += bytes.length;
		const acc = { bufferView: this.json.bufferViews.length - 1, componentType, count: data.length / n, type };
		if (normalized) acc.normalized = true;
		if (minmax) {
			acc.min = [];
			acc.max = [];
			for (let c = 0; c < n; c++) {
				let lo = Infinity;
				let hi = -Infinity;
				for (let i = c; i < data.length; i += n) {
					lo = Math.min(lo, data[i]);
					hi = Math.max(hi, data[i]);
				}
				acc.min.push(lo);
				acc.max.push(hi);
			}
		}
		this.json.accessors.push(acc);
		return this.json.accessors.length - 1;
	}

	node(def, { root = false } = {}) {
		this.json.nodes.push(def);
		const i = this.json.nodes.length - 1;
		if (root) this.json.scenes[0].nodes.push(i);
		return i;
	}

	/** channels: [{ node, path, times, values, interpolation }] */
	animation(name, channels) {
		const a = { channels: [], samplers: [] };
		if (name !== null) a.name = name;
		for (const c of channels) {
			const type = c.path === 'rotation' ? 'VEC4' : c.path === 'weights' ? 'SCALAR' : 'VEC3';
			const input = this.accessor(c.times, 'SCALAR', { minmax: true });
			const output = this.accessor(c.values, type);
			a.samplers.push({ input, output, interpolation: c.interpolation || 'LINEAR' });
			a.channels.push({ sampler: a.samplers.length - 1, target: { node: c.node, path: c.path } });
		}
		this.json.animations.push(a);
	}

	toJSON() {
		const bin = Buffer.concat(this.chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)));
		const j = structuredClone(this.json);
		j.buffers = [{ byteLength: bin.length, uri: 'data:application/octet-stream;base64,' + bin.toString('base64') }];
		for (const k of ['meshes', 'skins', 'animations']) if (j[k].length === 0) delete j[k];
		return j;
	}
}

/** One triangle, optionally skinned to joints [0,0,0,0] with the given weights per vertex. */
export function triangle(b, { weights = null } = {}) {
	const positions = [0, 0, 0, 1, 0, 0, 0, 1, 0];
	const attributes = { POSITION: b.accessor(positions, 'VEC3', { minmax: true }) };
	if (weights) {
		attributes.JOINTS_0 = b.accessor(new Array(12).fill(0), 'VEC4', { componentType: UBYTE });
		attributes.WEIGHTS_0 = b.accessor(weights.flatMap((w) => [w, 0, 0, 0]), 'VEC4');
	}
	b.json.meshes.push({ primitives: [{ attributes }] });
	return { mesh: b.json.meshes.length - 1, positions };
}
