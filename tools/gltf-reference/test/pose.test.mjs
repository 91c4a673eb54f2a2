// node --test test/   (from tools/gltf-reference)
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { GltfBuilder, triangle } from './fixtures.mjs';
import { readGltf } from '../gltf-io.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, '..');
const ASSETS = path.resolve(ROOT, '../../../shared/assets');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'gltf-reference-'));
process.on('exit', () => fs.rmSync(TMP, { recursive: true, force: true }));

function run(script, args) {
	const r = spawnSync(process.execPath, [path.join(ROOT, script), ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
	return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
function pose(file, ...args) {
	const r = run('pose.mjs', [file, ...args]);
	assert.equal(r.code, 0, r.stderr);
	return JSON.parse(r.stdout);
}
function write(name, json) {
	const f = path.join(TMP, name);
	fs.writeFileSync(f, JSON.stringify(json));
	return f;
}
const close = (a, b, eps = 1e-6) => assert.ok(Math.abs(a - b) <= eps, `${a} != ${b}`);
const tx = (m) => [m[12], m[13], m[14]];

// Root node 0 (joint) with a translation channel; skinned triangle on node 1.
function oneJoint(channels, { jointDef = {}, name = 'clip' } = {}) {
	const b = new GltfBuilder();
	const j = b.node({ name: 'J', ...jointDef }, { root: true });
	const { mesh } = triangle(b, { weights: [1, 1, 1] });
	b.node({ name: 'M', mesh, skin: 0 }, { root: true });
	b.json.skins.push({ joints: [j], inverseBindMatrices: b.accessor([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 'MAT4') });
	b.animation(name, channels.map((c) => ({ node: j, ...c })));
	return b.toJSON();
}

test('LINEAR: T == duration gives the last key (no wrap); T is clamped', () => {
	const f = write('linear.gltf', oneJoint([{ path: 'translation', times: [0, 1], values: [0, 0, 0, 1, 0, 0] }]));
	const out = pose(f, '--time', '0.25', '--time', '1', '--time', '5', '--time', '-1');
	assert.deepEqual(out.clips, [{ name: 'clip', duration: 1 }]);
	assert.deepEqual(out.joints, [{ name: 'J', node: 0, parent: null }]);
	const xs = out.samples.map((s) => s.world[0][12]);
	[0.25, 1, 1, 0].forEach((x, i) => close(xs[i], x));
	assert.deepEqual(out.samples.map((s) => s.time), [0.25, 1, 5, -1]); // requested times are echoed
});

test('default times are 0 and the midpoint', () => {
	const f = write('linear2.gltf', oneJoint([{ path: 'translation', times: [0, 2], values: [0, 0, 0, 2, 0, 0] }]));
	assert.deepEqual(pose(f).samples.map((s) => s.time), [0, 1]);
});

test('duration is the last key time; before the first key holds the first value', () => {
	const f = write('late.gltf', oneJoint([{ path: 'translation', times: [0.5, 1.5], values: [3, 0, 0, 5, 0, 0] }]));
	const out = pose(f, '--time', '0', '--time', '1');
	close(out.clips[0].duration, 1.5);
	close(out.samples[0].world[0][12], 3);
	close(out.samples[1].world[0][12], 4);
});

test('STEP holds the previous key', () => {
	const f = write('step.gltf', oneJoint([{ path: 'translation', times: [0, 1, 2], values: [0, 0, 0, 5, 0, 0, 7, 0, 0], interpolation: 'STEP' }]));
	const out = pose(f, '--time', '0.99', '--time', '1', '--time', '1.5', '--time', '2');
	assert.deepEqual(out.samples.map((s) => Math.round(s.world[0][12] * 1e6) / 1e6), [0, 5, 5, 7]);
});

test('CUBICSPLINE: Hermite with tangents scaled by the key interval; quaternions normalised', () => {
	// translation x: p0=0, out-tangent b0=2, p1=1, in-tangent a1=0, keys at 0 and 2 (td=2)
	const tvals = [0, 0, 0, 0, 0, 0, 2, 0, 0, /* key 1 */ 0, 0, 0, 1, 0, 0, 0, 0, 0];
	// rotation: identity -> 90deg about z, zero tangents: the raw Hermite blend is not unit length
	const s = Math.SQRT1_2;
	const rvals = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, /* key 1 */ 0, 0, 0, 0, 0, 0, s, s, 0, 0, 0, 0];
	const f = write('cubic.gltf', oneJoint([
		{ path: 'translation', times: [0, 2], values: tvals, interpolation: 'CUBICSPLINE' },
		{ path: 'rotation', times: [0, 2], values: rvals, interpolation: 'CUBICSPLINE' },
	]));
	const out = pose(f, '--time', '0.5', '--time', '1', '--time', '2');
	for (const [i, t] of [[0, 0.5], [1, 1]]) {
		const p = t / 2;
		const h = (2 * p ** 3 - 3 * p ** 2 + 1) * 0 + (p ** 3 - 2 * p ** 2 + p) * 2 * 2 + (-2 * p ** 3 + 3 * p ** 2) * 1;
		close(out.samples[i].world[0][12], h);
		const m = out.samples[i].world[0];
		close(Math.hypot(m[0], m[1], m[2]), 1); // unit column => quaternion was normalised
	}
	// at T=1 (p=0.5) the blend is (0,0,.5s,.5+.5s) normalised: 45 degrees about z
	const m = out.samples[1].world[0];
	close(Math.atan2(m[1], m[0]), Math.PI / 4);
	close(out.samples[2].world[0][12], 1);
});

test('quaternion LINEAR takes the shortest arc (negated key)', () => {
	const s = Math.SQRT1_2;
	const f = write('slerp.gltf', oneJoint([{ path: 'rotation', times: [0, 1], values: [0, 0, 0, 1, 0, 0, -s, -s] }]));
	const m = pose(f, '--time', '0.5').samples[0].world[0];
	close(Math.atan2(m[1], m[0]), Math.PI / 4); // +45deg, not -135deg
});

test('skinned mesh node transform and its parents are ignored; weights are normalised', () => {
	const b = new GltfBuilder();
	const j = b.node({ name: 'J', translation: [0, 0, 5] }, { root: true });
	const { mesh } = triangle(b, { weights: [0.5, 0.25, 2] }); // non-normalised on purpose
	const m = b.node({ name: 'M', mesh, skin: 0, translation: [10, 0, 0], scale: [3, 3, 3] });
	b.node({ name: 'P', translation: [0, 100, 0], children: [m] }, { root: true });
	// inverse bind = identity: the vertex follows joint J exactly
	b.json.skins.push({ joints: [j], inverseBindMatrices: b.accessor([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 'MAT4') });
	b.animation('a', [{ node: j, path: 'translation', times: [0, 1], values: [0, 0, 5, 0, 0, 6] }]);
	const out = pose(write('skinned.gltf', b.toJSON()), '--positions', '--time', '1');
	const prim = out.samples[0].primitives[0];
	assert.deepEqual([prim.node, prim.mesh, prim.primitive], [1, 0, 0]);
	const expect = [[0, 0, 6], [1, 0, 6], [0, 1, 6]];
	prim.positions.forEach((v, i) => v.forEach((x, k) => close(x, expect[i][k])));
});

test('rigid mesh under a joint follows the joint; --nodes all lists every node', () => {
	const b = new GltfBuilder();
	const j = b.node({ name: 'J' }, { root: true });
	const { mesh } = triangle(b);
	const r = b.node({ name: 'R', mesh, translation: [0, 2, 0] });
	b.json.nodes[j].children = [r];
	b.json.skins.push({ joints: [j] }); // no inverseBindMatrices: identity
	b.animation(null, [{ node: j, path: 'translation', times: [0, 1], values: [0, 0, 0, 4, 0, 0] }]);
	const f = write('rigid.gltf', b.toJSON());
	const out = pose(f, '--positions', '--time', '1');
	assert.deepEqual(out.clips, [{ name: 'animation_0', duration: 1 }]);
	assert.deepEqual(out.samples[0].primitives[0].positions, [[4, 2, 0], [5, 2, 0], [4, 3, 0]]);
	const all = pose(f, '--nodes', 'all', '--time', '1');
	assert.deepEqual(all.joints, [{ name: 'J', node: 0, parent: null }, { name: 'R', node: 1, parent: 0 }]);
	assert.equal(all.samples[0].skin[1], null); // R is not a joint
});

test('--merge-animations plays every animation as one clip', () => {
	const b = new GltfBuilder();
	const a = b.node({ name: 'A' }, { root: true });
	const c = b.node({ name: 'C' }, { root: true });
	b.json.skins.push({ joints: [a, c] });
	b.animation(null, [{ node: a, path: 'translation', times: [0, 1], values: [0, 0, 0, 1, 0, 0] }]);
	b.animation(null, [{ node: c, path: 'translation', times: [0, 3], values: [0, 0, 0, 0, 3, 0] }]);
	const f = write('merge.gltf', b.toJSON());
	assert.deepEqual(pose(f).clips.map((x) => x.name), ['animation_0', 'animation_1']);
	const out = pose(f, '--merge-animations', '--time', '2');
	assert.deepEqual(out.clips, [{ name: 'merged', duration: 3 }]);
	assert.deepEqual(tx(out.samples[0].world[0]).map((x) => Math.round(x * 1e6) / 1e6), [1, 0, 0]);
	assert.deepEqual(tx(out.samples[0].world[1]).map((x) => Math.round(x * 1e6) / 1e6), [0, 2, 0]);
});

test('errors: missing file and unknown clip exit 2', () => {
	assert.equal(run('pose.mjs', [path.join(TMP, 'nope.glb')]).code, 2);
	const f = write('linear3.gltf', oneJoint([{ path: 'translation', times: [0, 1], values: [0, 0, 0, 1, 0, 0] }]));
	const r = run('pose.mjs', [f, '--clip', 'nope']);
	assert.equal(r.code, 2);
	assert.match(r.stderr, /unknown clip/);
	assert.equal(run('compare.mjs', [f, path.join(TMP, 'nope.json')]).code, 2);
	assert.equal(run('validate.mjs', [path.join(TMP, 'nope.glb')]).code, 2);
});

test('compare.mjs: identical passes, perturbed and missing fail', () => {
	const f = write('cmp.gltf', oneJoint([{ path: 'translation', times: [0, 1], values: [0, 0, 0, 1, 0, 0] }]));
	const r0 = run('pose.mjs', [f, '--positions']);
	const e = path.join(TMP, 'e.json');
	fs.writeFileSync(e, r0.stdout);
	assert.equal(run('compare.mjs', [e, e]).code, 0);
	const j = JSON.parse(r0.stdout);
	j.samples[1].world[0][12] += 0.01;
	const a = path.join(TMP, 'a.json');
	fs.writeFileSync(a, JSON.stringify(j));
	const r1 = run('compare.mjs', [e, a]);
	assert.equal(r1.code, 1);
	assert.match(r1.stdout, /world matrices .*FAIL/);
	assert.equal(run('compare.mjs', [e, a, '--tol-frac', '0.1']).code, 0);
	j.samples.pop();
	fs.writeFileSync(a, JSON.stringify(j));
	assert.match(run('compare.mjs', [e, a, '--tol-frac', '0.1']).stdout, /missing in ACTUAL/);
});

test('validate.mjs: valid fixture passes, non-normalised weights fail', () => {
	const ok = write('valid.gltf', oneJoint([{ path: 'translation', times: [0, 1], values: [0, 0, 0, 1, 0, 0] }]));
	const r = run('validate.mjs', [ok]);
	assert.equal(r.code, 0, r.stdout);
	assert.match(r.stdout, /0 errors/);
	const b = new GltfBuilder();
	const j = b.node({ name: 'J' }, { root: true });
	const { mesh } = triangle(b, { weights: [0.5, 1, 1] });
	b.node({ mesh, skin: 0 }, { root: true });
	b.json.skins.push({ joints: [j] });
	const r2 = run('validate.mjs', [write('badweights.gltf', b.toJSON())]);
	assert.equal(r2.code, 1);
	assert.match(r2.stdout, /ACCESSOR_WEIGHTS_NON_NORMALIZED/);
});

// Real models: re-skin each vertex from the raw accessors with pose.mjs's own skin matrices
// (weights normalised like three.js) and check it matches getVertexPosition.
for (const model of ['Fox', 'CesiumMan', 'RobotExpressive']) {
	const file = path.join(ASSETS, `${model}.glb`);
	test(`${model}: positions == sum(w/|w|_1 * skin[j]) * v`, { skip: !fs.existsSync(file) && 'no shared/assets' }, () => {
		const out = pose(file, '--positions', ...(model === 'CesiumMan' ? ['--merge-animations'] : ['--clip', '0']));
		const { json, buffers } = readGltf(file);
		const read = (i) => {
			const a = json.accessors[i];
			const bv = json.bufferViews[a.bufferView];
			const n = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 }[a.type];
			const C = { 5121: Uint8Array, 5123: Uint16Array, 5126: Float32Array }[a.componentType];
			const stride = bv.byteStride || n * C.BYTES_PER_ELEMENT;
			const buf = buffers[bv.buffer];
			const base = buf.byteOffset + (bv.byteOffset || 0) + (a.byteOffset || 0);
			const res = [];
			for (let k = 0; k < a.count; k++) res.push(Array.from(new C(buf.buffer, base + k * stride, n)).map((x) => (a.normalized ? x / (2 ** (8 * C.BYTES_PER_ELEMENT) - 1) : x)));
			return res;
		};
		const jointRow = new Map(out.joints.map((x, i) => [x.node, i]));
		// three.js stores the normalised weights back into a Float32Array: compare relative to size
		const all = out.samples.flatMap((x) => x.primitives.flatMap((p) => p.positions));
		const ext = [0, 1, 2].map((c) => all.reduce((m, v) => Math.max(m, v[c]), -Infinity) - all.reduce((m, v) => Math.min(m, v[c]), Infinity));
		const diag = Math.hypot(...ext);
		let maxErr = 0;
		for (const s of out.samples) {
			for (const p of s.primitives) {
				const nodeDef = json.nodes[p.node];
				const prim = json.meshes[p.mesh].primitives[p.primitive];
				const pos = read(prim.attributes.POSITION);
				if (nodeDef.skin === undefined) continue; // rigid meshes: checked by the synthetic test
				const skin = json.skins[nodeDef.skin];
				const J = read(prim.attributes.JOINTS_0);
				const W = read(prim.attributes.WEIGHTS_0);
				pos.forEach((v, i) => {
					const sum = W[i].reduce((x, y) => x + y, 0);
					const r = [0, 0, 0];
					for (let k = 0; k < 4; k++) {
						const w = W[i][k] / sum;
						if (w === 0) continue;
						const m = s.skin[jointRow.get(skin.joints[J[i][k]])];
						for (let c = 0; c < 3; c++) r[c] += w * (m[c] * v[0] + m[4 + c] * v[1] + m[8 + c] * v[2] + m[12 + c]);
					}
					for (let c = 0; c < 3; c++) maxErr = Math.max(maxErr, Math.abs(r[c] - p.positions[i][c]) / diag);
				});
			}
		}
		assert.ok(maxErr < 1e-7, `max relative error ${maxErr}`);
	});
}
