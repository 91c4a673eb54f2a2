#!/usr/bin/env node
// Reference poser: samples glTF skeletal animation with three.js (GLTFLoader + AnimationMixer)
// and prints the same JSON as `throng pose`. See README.md.
import fs from 'node:fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { UsageError, readGltf, prepareForThree, buildGlb } from './gltf-io.mjs';

const USAGE = `usage: node pose.mjs MODEL.(glb|gltf) [--clip NAME|INDEX] [--time T]... [--positions]
                     [--merge-animations] [--nodes joints|all] [--keep-morph]

  --clip NAME|INDEX    sample only this clip (exact name first, then index); default: all clips
  --time T             sample time in seconds (repeatable), clamped to [0, duration];
                       default: 0 and the midpoint of each clip
  --positions          also output world-space vertex positions of every mesh primitive
  --merge-animations   play all animations together as one clip named "merged" (duration = max)
  --nodes joints|all   output only skin joints (default) or every node of the scene
  --keep-morph         with --positions, keep three.js's morph weights (file defaults and animated
                       "weights" channels); default: all morph weights forced to 0`;

function parseArgs(argv) {
	const o = { model: null, clip: null, times: [], positions: false, merge: false, nodes: 'joints', keepMorph: false };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const val = () => {
			if (i + 1 >= argv.length) throw new UsageError(`${a} needs a value`);
			return argv[++i];
		};
		if (a === '-h' || a === '--help') {
			fs.writeSync(1, USAGE + '\n');
			process.exit(0);
		} else if (a === '--clip') o.clip = val();
		else if (a === '--time') {
			const s = val();
			const t = Number(s);
			if (s.trim() === '' || !Number.isFinite(t)) throw new UsageError(`--time: not a number: ${s}`);
			o.times.push(t);
		} else if (a === '--positions') o.positions = true;
		else if (a === '--merge-animations') o.merge = true;
		else if (a === '--keep-morph') o.keepMorph = true;
		else if (a === '--nodes') {
			o.nodes = val();
			if (o.nodes !== 'all' && o.nodes !== 'joints') throw new UsageError(`--nodes: expected joints or all, got ${o.nodes}`);
		} else if (a.startsWith('-')) throw new UsageError(`unknown option ${a}`);
		else if (o.model === null) o.model = a;
		else throw new UsageError(`unexpected argument ${a}`);
	}
	if (o.model === null) throw new UsageError('missing MODEL');
	return o;
}

async function load(file) {
	const { json, buffers } = readGltf(file);
	const prepared = prepareForThree(json, buffers);
	const glb = buildGlb(prepared.json, prepared.bin);
	const gltf = await new GLTFLoader().parseAsync(glb, '');
	return { json, gltf };
}

const arr = (m) => Array.from(m.elements);

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	const { json, gltf } = await load(opts.model);
	const parser = gltf.parser;
	const scene = gltf.scene;
	const warn = (msg) => process.stderr.write(`pose.mjs: note: ${msg}\n`);

	// glTF node index -> Object3D in the loaded scene (first occurrence).
	const nodeObj = new Map();
	scene.traverse((obj) => {
		const a = parser.associations.get(obj);
		if (a && a.nodes !== undefined && !nodeObj.has(a.nodes)) nodeObj.set(a.nodes, obj);
	});
	const nodeIndexOf = (obj) => {
		const a = parser.associations.get(obj);
		return a && a.nodes !== undefined && nodeObj.get(a.nodes) === obj ? a.nodes : undefined;
	};

	// Skeletons as three.js builds them (same Bone objects as in the scene): bone -> boneInverse.
	const boneInverse = new Map();
	for (let s = 0; s < (json.skins || []).length; s++) {
		const skeleton = await parser.getDependency('skin', s);
		skeleton.bones.forEach((bone, k) => {
			const inv = skeleton.boneInverses[k];
			const prev = boneInverse.get(bone);
			if (prev === undefined) boneInverse.set(bone, inv);
			else if (!prev.equals(inv)) warn(`joint "${bone.name}" has different inverse bind matrices in different skins; using the lowest skin index`);
		});
	}

	// Selected nodes.
	let selected;
	if (opts.nodes === 'all') selected = [...nodeObj.keys()];
	else {
		selected = [...new Set((json.skins || []).flatMap((s) => s.joints))];
		for (const n of selected) if (!nodeObj.has(n)) warn(`joint node ${n} is not in the loaded scene; skipped`);
		selected = selected.filter((n) => nodeObj.has(n));
	}
	selected.sort((a, b) => a - b);
	const posInList = new Map(selected.map((n, i) => [n, i]));
	const joints = selected.map((n) => {
		let p = nodeObj.get(n).parent;
		let parent = null;
		while (p) {
			const pn = nodeIndexOf(p);
			if (pn !== undefined && posInList.has(pn)) {
				parent = posInList.get(pn);
				break;
			}
			p = p.parent;
		}
		return { name: json.nodes[n].name ?? null, node: n, parent };
	});

	// Clips.
	let clips = gltf.animations.map((c, i) => ({ name: json.animations[i].name || `animation_${i}`, clip: c }));
	if (opts.merge) {
		const tracks = gltf.animations.flatMap((c) => c.tracks);
		const seen = new Set();
		for (const t of tracks) {
			if (seen.has(t.name)) warn(`merged: more than one animation targets ${t.name}; the mixer averages them`);
			seen.add(t.name);
		}
		clips = [{ name: 'merged', clip: new THREE.AnimationClip('merged', -1, tracks) }];
	}
	let chosen = clips;
	if (opts.clip !== null) {
		let c = clips.filter((x) => x.name === opts.clip);
		if (c.length === 0 && /^\d+$/.test(opts.clip) && Number(opts.clip) < clips.length) c = [clips[Number(opts.clip)]];
		if (c.length === 0) {
			throw new UsageError(`unknown clip ${JSON.stringify(opts.clip)}; clips: ${clips.map((x, i) => `${i}:${x.name}`).join(', ') || '(none)'}`);
		}
		chosen = c.slice(0, 1);
	}

	// Rest pose of every object (TRS + morph weights as loaded).
	const rest = [];
	scene.traverse((obj) => {
		rest.push({
			obj,
			p: obj.position.clone(),
			q: obj.quaternion.clone(),
			s: obj.scale.clone(),
			m: obj.morphTargetInfluences ? obj.morphTargetInfluences.slice() : null,
		});
	});
	const restore = () => {
		for (const r of rest) {
			r.obj.position.copy(r.p);
			r.obj.quaternion.copy(r.q);
			r.obj.scale.copy(r.s);
			if (r.m) for (let i = 0; i < r.m.length; i++) r.obj.morphTargetInfluences[i] = r.m[i];
		}
	};

	// Mesh primitives three.js renders.
	const prims = [];
	if (opts.positions) {
		scene.traverse((obj) => {
			if (!obj.isMesh) return;
			const a = parser.associations.get(obj);
			if (!a || a.primitives === undefined) return;
			let p = obj;
			let node;
			while (p && (node = nodeIndexOf(p)) === undefined) p = p.parent;
			prims.push({ obj, node: node ?? null, mesh: a.meshes, primitive: a.primitives });
		});
		prims.sort((x, y) => x.node - y.node || x.mesh - y.mesh || x.primitive - y.primitive);
		const nonZero = [];
		for (const pr of prims) if (pr.obj.morphTargetInfluences && pr.obj.morphTargetInfluences.some((w) => w !== 0)) nonZero.push(pr.mesh);
		if (nonZero.length) warn(`three.js applied non-zero default morph weights from the file to meshes ${[...new Set(nonZero)]}${opts.keepMorph ? '' : ' (forced to 0)'}`);
		const weightChannels = (json.animations || []).reduce((n, a) => n + a.channels.filter((c) => c.target.path === 'weights').length, 0);
		if (weightChannels) warn(`${weightChannels} animation channels target morph weights${opts.keepMorph ? ' (applied)' : ' (ignored: weights forced to 0)'}`);
	}

	const samples = [];
	const v = new THREE.Vector3();
	const skinM = new THREE.Matrix4();
	for (const { name, clip } of chosen) {
		const duration = clip.duration;
		const times = opts.times.length ? opts.times : [...new Set([0, duration / 2])];
		for (const t of times) {
			const tc = Math.min(Math.max(t, 0), duration);
			restore();
			// A fresh mixer for every sample: PropertyMixer only writes values that changed since
			// its previous apply, so a reused mixer would not undo our manual restore.
			const mixer = new THREE.AnimationMixer(scene);
			const action = mixer.clipAction(clip);
			action.setLoop(THREE.LoopOnce, 1);
			action.clampWhenFinished = true;
			action.play();
			action.time = tc; // mixer.update(0) evaluates exactly at action.time, no wrapping
			mixer.update(0);
			if (opts.positions && !opts.keepMorph) {
				for (const pr of prims) if (pr.obj.morphTargetInfluences) pr.obj.morphTargetInfluences.fill(0);
			}
			scene.updateMatrixWorld(true);

			const world = [];
			const skin = [];
			for (const n of selected) {
				const obj = nodeObj.get(n);
				world.push(arr(obj.matrixWorld));
				const inv = boneInverse.get(obj);
				skin.push(inv ? arr(skinM.multiplyMatrices(obj.matrixWorld, inv)) : null);
			}
			const sample = { clip: name, time: t, world, skin };
			if (opts.positions) {
				sample.primitives = prims.map((pr) => {
					const obj = pr.obj;
					const count = obj.geometry.attributes.position.count;
					const positions = new Array(count);
					for (let i = 0; i < count; i++) {
						obj.getVertexPosition(i, v); // SkinnedMesh: bindMatrix, bones, bindMatrixInverse
						v.applyMatrix4(obj.matrixWorld);
						positions[i] = [v.x, v.y, v.z];
					}
					return { node: pr.node, mesh: pr.mesh, primitive: pr.primitive, positions };
				});
			}
			samples.push(sample);
			mixer.stopAllAction();
			mixer.uncacheRoot(scene);
		}
	}
	restore();

	const out = {
		joints,
		clips: clips.map(({ name, clip }) => ({ name, duration: clip.duration })),
		samples,
	};
	process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
	if (e instanceof UsageError) {
		fs.writeSync(2, `pose.mjs: error: ${e.message}\n`);
		if (/^(missing MODEL|unknown option|unexpected argument)/.test(e.message)) fs.writeSync(2, USAGE + '\n');
		process.exit(2);
	}
	fs.writeSync(2, `pose.mjs: error: ${e && e.stack ? e.stack : e}\n`);
	process.exit(1);
});
