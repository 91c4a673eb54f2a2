#!/usr/bin/env node
// Seeded random differential tester: generates random valid skinned glTF characters and checks
// that `throng pose` matches pose.mjs (three.js) on them. See README.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as THREE from 'three';
import validator from 'gltf-validator';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const USAGE = `usage: node fuzz-parity.mjs --throng PATH [--count N] [--seed S] [--keep DIR] [--jobs J]
                          [--tol-frac F] [--no-validate] [--quiet]

  --throng PATH    the throng binary (required)
  --count N        number of random characters (default 50)
  --seed S         seed of the first case; case i uses seed S+i (default 1).
                   Replay one case with --count 1 --seed X --keep DIR
  --keep DIR       write the .gltf and both pose JSON files to DIR and keep them
                   (default: a temporary directory, deleted at the end)
  --jobs J         cases run in parallel (default: number of CPUs, at most 4)
  --tol-frac F     tolerance passed to compare.mjs (default 1e-4)
  --no-validate    skip the Khronos glTF Validator check of each generated file
  --quiet          print only failing cases and the summary`;

function die(msg, code = 2) {
	fs.writeSync(2, `fuzz-parity.mjs: error: ${msg}\n`);
	process.exit(code);
}

function parseArgs(argv) {
	const o = { throng: null, count: 50, seed: 1, keep: null, jobs: Math.min(4, os.cpus().length || 1), tol: 1e-4, validate: true, quiet: false };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const val = () => {
			if (i + 1 >= argv.length) die(`${a} needs a value\n${USAGE}`);
			return argv[++i];
		};
		const int = (s, min) => {
			const x = Number(s);
			if (!Number.isInteger(x) || x < min) die(`${a}: expected an integer >= ${min}, got ${s}`);
			return x;
		};
		if (a === '-h' || a === '--help') {
			fs.writeSync(1, USAGE + '\n');
			process.exit(0);
		} else if (a === '--throng') o.throng = val();
		else if (a === '--count') o.count = int(val(), 0);
		else if (a === '--seed') o.seed = int(val(), 0);
		else if (a === '--keep') o.keep = val();
		else if (a === '--jobs') o.jobs = int(val(), 1);
		else if (a === '--tol-frac') {
			o.tol = Number(val());
			if (!(o.tol >= 0)) die('--tol-frac needs a non-negative number');
		} else if (a === '--no-validate') o.validate = false;
		else if (a === '--quiet') o.quiet = true;
		else die(`unknown argument ${a}\n${USAGE}`);
	}
	if (!o.throng) die(`--throng PATH is required\n${USAGE}`);
	if (!fs.existsSync(o.throng)) die(`no such file: ${o.throng}`);
	return o;
}

// ---- PRNG -----------------------------------------------------------------------------------
function mulberry32(a) {
	return function () {
		a |= 0;
		a = (a + 0x6d2b79f5) | 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

class Rng {
	constructor(seed) {
		this.f = mulberry32(seed >>> 0);
	}
	next() {
		return this.f();
	}
	range(a, b) {
		return a + (b - a) * this.f();
	}
	int(a, b) {
		return a + Math.floor(this.f() * (b - a + 1));
	}
	chance(p) {
		return this.f() < p;
	}
	pick(arr) {
		return arr[Math.floor(this.f() * arr.length)];
	}
	shuffle(arr) {
		for (let i = arr.length - 1; i > 0; i--) {
			const j = Math.floor(this.f() * (i + 1));
			[arr[i], arr[j]] = [arr[j], arr[i]];
		}
		return arr;
	}
	/** Uniformly random unit quaternion [x, y, z, w] (Shoemake). */
	quat() {
		const u1 = this.f();
		const u2 = this.f() * 2 * Math.PI;
		const u3 = this.f() * 2 * Math.PI;
		const a = Math.sqrt(1 - u1);
		const b = Math.sqrt(u1);
		return [a * Math.sin(u2), a * Math.cos(u2), b * Math.sin(u3), b * Math.cos(u3)];
	}
	/** Rotation by a random angle in [0, maxAngle] about a random axis. */
	smallQuat(maxAngle) {
		const ang = this.range(0, maxAngle);
		let x, y, z, n;
		do {
			x = this.range(-1, 1);
			y = this.range(-1, 1);
			z = this.range(-1, 1);
			n = Math.hypot(x, y, z);
		} while (n < 0.1 || n > 1);
		const s = Math.sin(ang / 2) / n;
		return [x * s, y * s, z * s, Math.cos(ang / 2)];
	}
}

const f32 = Math.fround;
const vround = (v) => v.map(f32);
function normQ(q) {
	const n = Math.hypot(...q);
	return q.map((c) => f32(c / n));
}
function mulQ(a, b) {
	const qa = new THREE.Quaternion(...a);
	const qb = new THREE.Quaternion(...b);
	qa.multiply(qb);
	return [qa.x, qa.y, qa.z, qa.w];
}
const dotQ = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
const composeM = ({ t, r, s }) =>
	new THREE.Matrix4().compose(new THREE.Vector3(...t), new THREE.Quaternion(...r), new THREE.Vector3(...s));

// ---- glTF builder ---------------------------------------------------------------------------
const FLOAT = 5126;
const UBYTE = 5121;
const USHORT = 5123;
const UINT = 5125;
const NCOMP = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 };
const ARRAY = { [FLOAT]: Float32Array, [UBYTE]: Uint8Array, [USHORT]: Uint16Array, [UINT]: Uint32Array };

class Builder {
	constructor() {
		this.chunks = [];
		this.length = 0;
		this.accessors = [];
		this.bufferViews = [];
	}
	view(values, componentType, target) {
		const data = new ARRAY[componentType](values);
		const pad = (4 - (this.length % 4)) % 4;
		if (pad) {
			this.chunks.push(new Uint8Array(pad));
			this.length += pad;
		}
		const bytes = new Uint8Array(data.buffer);
		const bv = { buffer: 0, byteOffset: this.length, byteLength: bytes.length };
		if (target) bv.target = target;
		this.bufferViews.push(bv);
		this.chunks.push(bytes);
		this.length += bytes.length;
		return this.bufferViews.length - 1;
	}
	/**
	 * Adds an accessor for the flat array `values`. minmax: write min/max. sparse: an array of
	 * element indices (strictly increasing) to store as a sparse substitution over a base view
	 * whose elements at those indices hold junk.
	 */
	accessor(values, type, { componentType = FLOAT, minmax = false, sparse = null, target = undefined, junk = null } = {}) {
		const n = NCOMP[type];
		const count = values.length / n;
		const acc = { componentType, count, type };
		if (sparse && sparse.length) {
			const base = values.slice();
			for (const e of sparse) for (let c = 0; c < n; c++) base[e * n + c] = junk ? junk(c) : 0;
			acc.bufferView = this.view(base, componentType, target);
			const idxType = count <= 255 ? UBYTE : count <= 65535 ? USHORT : UINT;
			acc.sparse = {
				count: sparse.length,
				indices: { bufferView: this.view(sparse, idxType), componentType: idxType },
				values: { bufferView: this.view(sparse.flatMap((e) => values.slice(e * n, e * n + n)), componentType) },
			};
		} else acc.bufferView = this.view(values, componentType, target);
		if (minmax) {
			const vals = new ARRAY[componentType](values);
			acc.min = [];
			acc.max = [];
			for (let c = 0; c < n; c++) {
				let lo = Infinity;
				let hi = -Infinity;
				for (let i = c; i < vals.length; i += n) {
					lo = Math.min(lo, vals[i]);
					hi = Math.max(hi, vals[i]);
				}
				acc.min.push(lo);
				acc.max.push(hi);
			}
		}
		this.accessors.push(acc);
		return this.accessors.length - 1;
	}
	buffer() {
		const bin = Buffer.concat(this.chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)));
		return { byteLength: bin.length, uri: 'data:application/octet-stream;base64,' + bin.toString('base64') };
	}
}

// ---- random character -----------------------------------------------------------------------
function randTRS(r, { allowNeg = true, tMax = 2 } = {}) {
	const t = r.chance(0.15) ? [0, 0, 0] : [r.range(-tMax, tMax), r.range(-tMax, tMax), r.range(-tMax, tMax)];
	const q = r.chance(0.2) ? [0, 0, 0, 1] : r.quat();
	let s;
	const m = r.next();
	if (m < 0.45) s = [1, 1, 1];
	else if (m < 0.65) {
		const u = r.range(0.5, 2);
		s = [u, u, u];
	} else s = [r.range(0.5, 2), r.range(0.5, 2), r.range(0.5, 2)];
	let neg = false;
	if (allowNeg && r.chance(0.08)) {
		neg = true;
		if (r.chance(0.5)) s[r.int(0, 2)] *= -1;
		else s = s.map((x) => -x);
	}
	return { trs: { t: vround(t), r: normQ(q), s: vround(s) }, neg };
}

/** Generates one character from `seed`. Returns { json, features, times }. */
export function generate(seed) {
	const r = new Rng(seed);
	const feat = new Set();
	const b = new Builder();
	const info = []; // per node: { name, parent, trs, mesh?, skin?, canMatrix }
	const scene = [];
	const addNode = (name, parent, trs, extra = {}) => {
		info.push({ name, parent, trs, children: [], ...extra });
		const i = info.length - 1;
		if (parent === null) scene.push(i);
		else info[parent].children.push(i);
		return i;
	};
	const rnd = (opts) => {
		const { trs, neg } = randTRS(r, opts);
		if (neg) feat.add('negscale');
		return trs;
	};

	// Sometimes the skeleton hangs below the (first) skinned mesh node, whose transform then
	// moves the joints but not its own mesh directly.
	let preMesh = null;
	if (r.chance(0.1)) {
		preMesh = addNode('Skinned0', null, rnd());
		feat.add('skel-under-mesh');
	}
	// Non-joint ancestors above the skeleton.
	let top = preMesh;
	let armature = null;
	if (r.chance(0.6)) {
		if (r.chance(0.25)) {
			top = addNode('Root', null, rnd());
			feat.add('root');
		}
		const kind = r.pick(['zup', 'zup', 'rand']);
		const sc = r.pick([0.01, 100, 1, r.range(0.5, 2)]);
		const trs = kind === 'zup'
			? { t: [0, 0, 0], r: normQ([-Math.SQRT1_2, 0, 0, Math.SQRT1_2]), s: vround([sc, sc, sc]) }
			: { ...rnd(), s: vround([sc, sc, sc]) };
		if (r.chance(0.3)) trs.t = vround([r.range(-2, 2), r.range(-2, 2), r.range(-2, 2)]);
		armature = addNode('Armature', top, trs);
		top = armature;
		feat.add(`arm(${kind},s=${+sc.toPrecision(3)})`);
	}
	const armScale = armature === null ? 1 : Math.abs(info[armature].trs.s[0]);

	// Joints, sometimes with a static non-joint node in between.
	const nJ = r.int(2, 12);
	feat.add(`j${nJ}`);
	const joints = [];
	const gaps = [];
	for (let k = 0; k < nJ; k++) {
		let parent = k === 0 ? top : joints[Math.max(0, k - 1 - Math.floor(r.next() * r.next() * k))];
		if (k > 0 && r.chance(0.12)) {
			parent = addNode(`G${k}`, parent, rnd());
			gaps.push(parent);
			feat.add('gap');
		}
		joints.push(addNode(`J${k}`, parent, rnd({ tMax: k === 0 ? 1 : 1.5 })));
	}

	// World matrix of node i with optional local overrides.
	const world = (i, override = null) => {
		const chain = [];
		for (let n = i; n !== null; n = info[n].parent) chain.push(n);
		const m = new THREE.Matrix4();
		for (let k = chain.length - 1; k >= 0; k--) {
			const n = chain[k];
			m.multiply(composeM((override && override.get(n)) || info[n].trs));
		}
		return m;
	};
	// Bind poses: rest, or the rest with random joint perturbations.
	const bindPose = () => {
		const o = new Map();
		for (const j of joints) {
			if (!r.chance(0.6)) continue;
			const trs = info[j].trs;
			o.set(j, {
				t: vround(trs.t.map((x) => x + r.range(-0.5, 0.5))),
				r: normQ(mulQ(trs.r, r.smallQuat(1.5))),
				s: trs.s,
			});
		}
		return o;
	};
	const mkSkin = (mode, order) => {
		const skin = { joints: order.map((k) => joints[k]) };
		let override = null;
		if (mode === 'posed') override = bindPose();
		const mats = order.map((k) => world(joints[k], override));
		if (mode !== 'omitted') skin.inverseBindMatrices = b.accessor(mats.flatMap((m) => Array.from(m.clone().invert().elements)), 'MAT4');
		if (r.chance(0.3)) skin.skeleton = joints[0];
		return { skin, mats };
	};

	const skins = [];
	const identityOrder = joints.map((_, k) => k);
	const mode0 = r.next() < 0.55 ? 'rest' : r.chance(0.65) ? 'posed' : 'omitted';
	feat.add(`ibm:${mode0}`);
	const subset = () => {
		// Sometimes a skin lists only some joints (the others still move the listed ones).
		if (nJ < 3 || !r.chance(0.25)) return identityOrder;
		feat.add('skin-subset');
		const keep = identityOrder.filter(() => r.chance(0.7));
		return keep.length >= 2 ? keep : [0, nJ - 1];
	};
	const order0 = subset();
	skins.push(mkSkin(mode0, r.chance(0.3) ? r.shuffle(order0.slice()) : order0));

	// Skinned meshes.
	const meshes = [];
	const nSkinned = r.chance(0.4) ? 2 : 1;
	let meshParent = null;
	const skinnedNodes = [];
	for (let m = 0; m < nSkinned; m++) {
		let skinIdx = 0;
		if (m === 1 && r.chance(0.6)) {
			const same = r.chance(0.4);
			const s0 = skins[0];
			if (same && mode0 !== 'omitted') {
				const order = r.chance(0.5) ? s0.skin.joints.map((n) => joints.indexOf(n)) : order0;
				const skin = { joints: order.map((k) => joints[k]) };
				const mats = order.map((k) => world(joints[k]));
				if (mode0 === 'rest' && skin.joints.every((n, i) => n === s0.skin.joints[i]) && r.chance(0.5)) skin.inverseBindMatrices = s0.skin.inverseBindMatrices;
				else {
					// Same inverse binds as skin 0 (copied in this skin's joint order).
					const inv = s0.skin.joints.map((n, i) => [n, s0.mats[i]]);
					const byNode = new Map(inv);
					const ms = skin.joints.map((n) => byNode.get(n));
					skin.inverseBindMatrices = b.accessor(ms.flatMap((mm) => Array.from(mm.clone().invert().elements)), 'MAT4');
					mats.splice(0, mats.length, ...ms);
				}
				skins.push({ skin, mats });
				feat.add('skin2:same');
			} else {
				const o = subset();
				skins.push(mkSkin('posed', r.chance(0.3) ? r.shuffle(o.slice()) : o));
				feat.add('skin2:other');
			}
			skinIdx = 1;
		}
		const { skin, mats } = skins[skinIdx];
		const nPrim = r.int(1, 2);
		const primitives = [];
		for (let p = 0; p < nPrim; p++) {
			const indexed = r.chance(0.5);
			const nv = indexed ? r.int(4, 12) : 3 * r.int(2, 6);
			const pos = [];
			const jnt = [];
			const wgt = [];
			for (let v = 0; v < nv; v++) {
				const home = r.int(0, skin.joints.length - 1);
				const e = mats[home].elements;
				const sc = skinIdx === 0 && mode0 === 'omitted' ? 1 : armScale;
				pos.push(e[12] + r.range(-1, 1) * sc, e[13] + r.range(-1, 1) * sc, e[14] + r.range(-1, 1) * sc);
				const k = Math.min(r.int(1, 4), skin.joints.length);
				const chosen = [home];
				while (chosen.length < k) {
					const c = r.int(0, skin.joints.length - 1);
					if (!chosen.includes(c)) chosen.push(c);
				}
				// Weights: k positive multiples of 1/64 that sum to exactly 1.
				const cuts = new Set();
				while (cuts.size < k - 1) cuts.add(r.int(1, 63));
				const cs = [0, ...[...cuts].sort((x, y) => x - y), 64];
				const ws = chosen.map((_, i) => (cs[i + 1] - cs[i]) / 64);
				const slots = [0, 1, 2, 3].map((i) => (i < k ? [chosen[i], ws[i]] : [0, 0]));
				if (r.chance(0.3)) r.shuffle(slots);
				for (const [j, w] of slots) {
					jnt.push(j);
					wgt.push(w);
				}
			}
			const attributes = {};
			const sparsePos = r.chance(0.1);
			if (sparsePos) feat.add('sparse-pos');
			const sp = sparsePos ? [...Array(nv).keys()].filter(() => r.chance(0.4)) : null;
			attributes.POSITION = b.accessor(vround(pos), 'VEC3', { minmax: true, sparse: sp, target: 34962, junk: () => 7 });
			const jct = r.chance(0.5) ? UBYTE : USHORT;
			feat.add(jct === UBYTE ? 'joints:u8' : 'joints:u16');
			attributes.JOINTS_0 = b.accessor(jnt, 'VEC4', { componentType: jct, target: 34962 });
			attributes.WEIGHTS_0 = b.accessor(wgt, 'VEC4', { target: 34962 });
			const prim = { attributes };
			if (indexed) {
				feat.add('indexed');
				const nt = r.int(2, 10);
				const idx = [];
				for (let t = 0; t < nt; t++) {
					const tri = new Set();
					while (tri.size < 3) tri.add(r.int(0, nv - 1));
					idx.push(...tri);
				}
				for (let v = 0; v < nv; v++) if (!idx.includes(v)) idx.push(v, (v + 1) % nv, (v + 2) % nv);
				while (idx.length % 3) idx.push(0);
				prim.indices = b.accessor(idx, 'SCALAR', { componentType: r.pick([UBYTE, USHORT, UINT]), target: 34963 });
			}
			primitives.push(prim);
		}
		if (nPrim > 1) feat.add('2prim');
		meshes.push({ name: `SkinMesh${m}`, primitives });
		// Where the skinned mesh node goes.
		const where = r.pick(['root', 'parent', 'armature']);
		let parent = null;
		if (where === 'parent') {
			if (meshParent === null) meshParent = addNode('MeshParent', null, rnd());
			parent = meshParent;
			feat.add('meshparent');
		} else if (where === 'armature' && armature !== null) parent = armature;
		const own = r.chance(0.4);
		if (own) feat.add('meshtrs');
		if (m === 0 && preMesh !== null) {
			Object.assign(info[preMesh], { mesh: meshes.length - 1, skin: skinIdx });
			skinnedNodes.push(preMesh);
			continue;
		}
		skinnedNodes.push(addNode(`Skinned${m}`, parent, own ? rnd() : { t: [0, 0, 0], r: [0, 0, 0, 1], s: [1, 1, 1] }, { mesh: meshes.length - 1, skin: skinIdx }));
	}
	if (nSkinned > 1) feat.add('2mesh');

	// Rigid props on joints (sometimes through a static intermediate node), or at the scene root.
	const props = [];
	const rigidMesh = () => {
		const nv = 3 * r.int(1, 4);
		const pos = [];
		for (let i = 0; i < 3 * nv; i++) pos.push(r.range(-1, 1));
		meshes.push({ name: `PropMesh${meshes.length}`, primitives: [{ attributes: { POSITION: b.accessor(vround(pos), 'VEC3', { minmax: true, target: 34962 }) } }] });
		return meshes.length - 1;
	};
	const nProps = r.chance(0.45) ? r.int(1, 2) : 0;
	for (let p = 0; p < nProps; p++) {
		let parent = r.pick(joints);
		if (r.chance(0.4)) {
			parent = addNode(`PropMid${p}`, parent, rnd());
			feat.add('propmid');
		}
		props.push(addNode(`Prop${p}`, parent, rnd(), { mesh: rigidMesh() }));
		feat.add('rigid');
	}
	if (r.chance(0.15)) {
		const j = r.pick(joints);
		info[j].mesh = rigidMesh();
		props.push(j);
		feat.add('mesh-on-joint');
	}
	if (r.chance(0.12)) {
		props.push(addNode('StaticProp', r.chance(0.5) ? null : armature, rnd(), { mesh: rigidMesh() }));
		feat.add('staticprop');
	}

	// Animations.
	const animated = new Set();
	const animations = [];
	const allTimes = new Set();
	let cubicSeen = false;
	const nA = r.int(1, 3);
	feat.add(`anim${nA}`);
	for (let a = 0; a < nA; a++) {
		const targets = [...joints, ...gaps].filter(() => r.chance(0.45));
		if (targets.length === 0) targets.push(r.pick(joints));
		if (armature !== null && r.chance(0.3)) {
			targets.push(armature);
			feat.add('anim-armature');
		}
		if (meshParent !== null && r.chance(0.15)) {
			targets.push(meshParent);
			feat.add('anim-meshparent');
		}
		if (props.length && r.chance(0.2)) {
			targets.push(r.pick(props));
			feat.add('anim-prop');
		}
		const targetSet = [...new Set(targets)];
		const anim = { name: `clip${a}_${r.int(0, 999)}`, channels: [], samplers: [] };
		const t0Shift = r.chance(0.3) ? r.range(0.1, 1) : 0;
		for (const node of targetSet) {
			let paths = ['translation', 'rotation', 'scale'].filter(() => r.chance(0.5));
			if (paths.length === 0) paths = [r.pick(['translation', 'rotation', 'scale'])];
			for (const p of paths) {
				const interp = r.pick(['STEP', 'LINEAR', 'LINEAR', 'CUBICSPLINE']);
				feat.add(interp.toLowerCase());
				if (interp === 'CUBICSPLINE') cubicSeen = true;
				const nk = r.int(interp === 'CUBICSPLINE' ? 2 : 1, 5);
				const times = [];
				let t = r.chance(0.5) ? t0Shift : r.chance(0.5) ? 0 : r.range(0.05, 1);
				if (t > 0) feat.add('late-start');
				for (let k = 0; k < nk; k++) {
					times.push(f32(t));
					t += r.range(0.1, 0.8);
				}
				const rest = info[node].trs;
				const n = p === 'rotation' ? 4 : 3;
				const vals = [];
				let prevQ = rest.r;
				for (let k = 0; k < nk; k++) {
					if (p === 'translation') vals.push(vround(rest.t.map((x) => x + r.range(-1, 1))));
					else if (p === 'scale') {
						const neg = r.chance(0.04);
						if (neg) feat.add('negscale-key');
						vals.push(vround([r.range(0.5, 2), r.range(0.5, 2), r.range(0.5, 2)].map((x) => (neg ? -x : x))));
					} else {
						let q = normQ(mulQ(prevQ, r.smallQuat(k === 0 ? 1.2 : 2.5)));
						if (interp === 'CUBICSPLINE') {
							if (dotQ(q, prevQ) < 0) q = q.map((c) => -c);
						} else if (r.chance(0.3)) {
							q = q.map((c) => -c);
							feat.add('qflip');
						}
						prevQ = q;
						vals.push(q);
					}
				}
				let out;
				if (interp === 'CUBICSPLINE') {
					const tan = p === 'rotation' ? 0.5 : 1;
					const rt = () => vround(Array.from({ length: n }, () => r.range(-tan, tan)));
					out = vals.flatMap((v) => [...rt(), ...v, ...rt()]);
				} else out = vals.flat();
				const type = n === 4 ? 'VEC4' : 'VEC3';
				let sp = null;
				if (r.chance(0.15)) {
					sp = [...Array(out.length / n).keys()].filter(() => r.chance(0.5));
					if (sp.length) feat.add('sparse-anim');
				}
				const input = b.accessor(times, 'SCALAR', { minmax: true });
				const output = b.accessor(out, type, { sparse: sp, junk: (c) => (c === 3 ? 1 : 0.25) });
				anim.samplers.push({ input, output, interpolation: interp });
				anim.channels.push({ sampler: anim.samplers.length - 1, target: { node, path: p } });
				animated.add(node);
				for (const x of times) allTimes.add(x);
			}
		}
		animations.push(anim);
	}

	// Nodes: TRS, or sometimes a matrix on nodes that are not animated.
	const unnamed = r.chance(0.15);
	const nodes = info.map((n, i) => {
		const def = {};
		if (unnamed && r.chance(0.5)) feat.add('unnamed');
		else def.name = n.name;
		if (!animated.has(i) && r.chance(0.2)) {
			def.matrix = Array.from(composeM(n.trs).elements).map(f32);
			feat.add('matrix');
		} else {
			const { t, r: q, s } = n.trs;
			if (t.some((x) => x !== 0) || r.chance(0.3)) def.translation = t;
			if (q[3] !== 1 || r.chance(0.3)) def.rotation = q;
			if (s.some((x) => x !== 1) || r.chance(0.3)) def.scale = s;
		}
		if (n.children.length) def.children = n.children;
		if (n.mesh !== undefined) def.mesh = n.mesh;
		if (n.skin !== undefined) def.skin = n.skin;
		return def;
	});

	const json = {
		asset: { version: '2.0', generator: `throng fuzz-parity seed ${seed}` },
		scene: 0,
		scenes: [{ nodes: scene }],
		nodes,
		meshes,
		skins: skins.map((s) => s.skin),
		animations,
		accessors: b.accessors,
		bufferViews: b.bufferViews,
		buffers: [b.buffer()],
	};

	// Sample times: 0, every key time, midpoints, a random time and one past the end.
	const keys = [...allTimes].sort((x, y) => x - y);
	const end = keys[keys.length - 1];
	const times = new Set([0, ...keys]);
	for (let i = 0; i + 1 < keys.length; i++) times.add(f32((keys[i] + keys[i + 1]) / 2));
	if (keys[0] > 0) times.add(f32(keys[0] / 2));
	times.add(f32(r.range(0, end)));
	times.add(f32(end + 0.5));
	let list = [...times].sort((x, y) => x - y);
	while (list.length > 40) list = list.filter((_, i) => i % 2 === 0 || i === list.length - 1);
	return { json, features: [...feat], times: list };
}

// ---- running ---------------------------------------------------------------------------------
function run(cmd, args) {
	return new Promise((resolve) => {
		const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
		const out = [];
		const err = [];
		p.stdout.on('data', (d) => out.push(d));
		p.stderr.on('data', (d) => err.push(d));
		p.on('error', (e) => resolve({ code: -1, stdout: '', stderr: String(e) }));
		p.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
	});
}

const firstLine = (s) => (s.split('\n').find((l) => l.trim() && !/note:|warning/i.test(l)) || s.split('\n')[0] || '').trim().slice(0, 300);

async function runCase(seed, dir, opts) {
	const { json, features, times } = generate(seed);
	const base = path.join(dir, `fuzz-${seed}`);
	const file = `${base}.gltf`;
	fs.writeFileSync(file, JSON.stringify(json));
	const res = { seed, features, ok: false, worst: NaN, msg: '' };
	if (opts.validate) {
		const report = await validator.validateString(JSON.stringify(json), { uri: path.basename(file), maxIssues: 20, writeTimestamp: false });
		if (report.issues.numErrors > 0) {
			const m = report.issues.messages.find((x) => x.severity === 0);
			res.msg = `INVALID glTF (generator bug): ${m.code}: ${m.message} at ${m.pointer}`;
			return res;
		}
	}
	const tArgs = times.flatMap((t) => ['--time', String(t)]);
	const [ref, thr] = await Promise.all([
		run(process.execPath, [path.join(HERE, 'pose.mjs'), file, '--positions', ...tArgs]),
		run(opts.throng, ['pose', file, '--positions', '--merge-animations', 'never', ...tArgs]),
	]);
	if (ref.code !== 0) {
		res.msg = `pose.mjs failed (exit ${ref.code}): ${firstLine(ref.stderr)}`;
		return res;
	}
	if (thr.code !== 0) {
		res.msg = `throng failed (exit ${thr.code}): ${firstLine(thr.stderr)}`;
		return res;
	}
	fs.writeFileSync(`${base}.expected.json`, ref.stdout);
	fs.writeFileSync(`${base}.actual.json`, thr.stdout);
	const cmp = await run(process.execPath, [path.join(HERE, 'compare.mjs'), `${base}.expected.json`, `${base}.actual.json`, '--tol-frac', String(opts.tol)]);
	let worst = 0;
	let where = '';
	for (const line of cmp.stdout.split('\n')) {
		const m = /^(world matrices|skin matrices|positions)\s+max rel (\S+).*?(?:worst: (.*))?$/.exec(line);
		if (m && Number(m[2]) >= worst) {
			worst = Number(m[2]);
			where = `${m[1]}${m[3] ? ` at ${m[3]}` : ''}`;
		}
	}
	res.worst = worst;
	res.where = where;
	if (cmp.code === 0) res.ok = true;
	else {
		const fails = cmp.stdout.split('\n').filter((l) => l.startsWith('FAIL: ')).map((l) => l.slice(6));
		res.msg = (fails.length ? fails.join(' | ') : firstLine(cmp.stderr || cmp.stdout)).slice(0, 400);
	}
	return res;
}

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	let dir;
	let temp = false;
	if (opts.keep) {
		dir = opts.keep;
		fs.mkdirSync(dir, { recursive: true });
	} else {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'throng-fuzz-'));
		temp = true;
	}
	const fmt = (x) => (Number.isNaN(x) ? '-' : x === 0 ? '0' : x.toExponential(2));
	let passed = 0;
	let failed = 0;
	const failedSeeds = [];
	let next = 0;
	const results = new Map();
	let printed = 0;
	const flush = () => {
		// Print in seed order.
		while (results.has(printed)) {
			const x = results.get(printed);
			results.delete(printed);
			printed++;
			if (x.ok) {
				passed++;
				if (!opts.quiet) process.stdout.write(`seed ${x.seed}: OK   worst ${fmt(x.worst)}  [${x.features.join(' ')}]\n`);
			} else {
				failed++;
				failedSeeds.push(x.seed);
				process.stdout.write(`seed ${x.seed}: FAIL worst ${fmt(x.worst)}${x.where ? ` (${x.where})` : ''}  [${x.features.join(' ')}]\n    ${x.msg}\n`);
			}
		}
	};
	const worker = async () => {
		while (next < opts.count) {
			const i = next++;
			let x;
			try {
				x = await runCase((opts.seed + i) >>> 0, dir, opts);
			} catch (e) {
				x = { seed: (opts.seed + i) >>> 0, features: [], ok: false, worst: NaN, msg: `generator error: ${e && e.stack ? e.stack : e}` };
			}
			results.set(i, x);
			flush();
		}
	};
	await Promise.all(Array.from({ length: Math.min(opts.jobs, Math.max(1, opts.count)) }, worker));
	if (temp) fs.rmSync(dir, { recursive: true, force: true });
	if (failedSeeds.length) {
		process.stdout.write(`replay a failure: node fuzz-parity.mjs --throng ${opts.throng} --count 1 --seed ${failedSeeds[0]} --keep DIR\n`);
	}
	process.stdout.write(`${passed} passed, ${failed} failed\n`);
	process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	main().catch((e) => {
		fs.writeSync(2, `fuzz-parity.mjs: error: ${e && e.stack ? e.stack : e}\n`);
		process.exit(1);
	});
}
