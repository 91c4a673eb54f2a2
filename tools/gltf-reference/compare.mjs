#!/usr/bin/env node
// Compares two pose JSON files (schema of `throng pose` / pose.mjs). See README.md.
import fs from 'node:fs';

const USAGE = 'usage: node compare.mjs EXPECTED.json ACTUAL.json [--tol-frac 1e-4] [--time-eps 1e-6]';

function die(msg, code = 2) {
	fs.writeSync(2, `compare.mjs: error: ${msg}\n`);
	process.exit(code);
}

function parseArgs(argv) {
	const o = { files: [], tolFrac: 1e-4, timeEps: 1e-6 };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === '-h' || a === '--help') {
			fs.writeSync(1, USAGE + '\n');
			process.exit(0);
		} else if (a === '--tol-frac' || a === '--time-eps') {
			const s = argv[++i];
			const x = Number(s);
			if (s === undefined || s.trim() === '' || !Number.isFinite(x) || x < 0) die(`${a} needs a non-negative number\n${USAGE}`);
			if (a === '--tol-frac') o.tolFrac = x;
			else o.timeEps = x;
		} else if (a.startsWith('-')) die(`unknown option ${a}\n${USAGE}`);
		else o.files.push(a);
	}
	if (o.files.length !== 2) die(`expected two files\n${USAGE}`);
	return o;
}

function readJson(file) {
	if (!fs.existsSync(file)) die(`no such file: ${file}`);
	try {
		const j = JSON.parse(fs.readFileSync(file, 'utf8'));
		if (!j || !Array.isArray(j.joints) || !Array.isArray(j.samples)) throw new Error('missing "joints" or "samples" array');
		return j;
	} catch (e) {
		die(`${file}: not a pose JSON file: ${e.message}`);
	}
}

const opts = parseArgs(process.argv.slice(2));
const [expFile, actFile] = opts.files;
const E = readJson(expFile);
const A = readJson(actFile);

const problems = []; // failures
const notes = [];
const fmt = (x) => (x === 0 ? '0' : Math.abs(x) >= 1e-3 && Math.abs(x) < 1e4 ? x.toPrecision(4) : x.toExponential(3));

// ---- scale: bounding-box diagonal of EXPECTED ------------------------------------------------
function diagonal(j) {
	const lo = [Infinity, Infinity, Infinity];
	const hi = [-Infinity, -Infinity, -Infinity];
	const add = (x, y, z) => {
		lo[0] = Math.min(lo[0], x); lo[1] = Math.min(lo[1], y); lo[2] = Math.min(lo[2], z);
		hi[0] = Math.max(hi[0], x); hi[1] = Math.max(hi[1], y); hi[2] = Math.max(hi[2], z);
	};
	let src = 'vertex positions';
	for (const s of j.samples) for (const p of s.primitives || []) for (const v of p.positions) add(v[0], v[1], v[2]);
	if (lo[0] === Infinity) {
		src = 'joint world translations';
		for (const s of j.samples) for (const m of s.world || []) if (m) add(m[12], m[13], m[14]);
	}
	if (lo[0] === Infinity) return { diag: 1, src: 'nothing (using 1)' };
	const d = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
	return d > 0 ? { diag: d, src } : { diag: 1, src: `${src} (degenerate, using 1)` };
}
const { diag, src: diagSrc } = diagonal(E);
const tol = opts.tolFrac;

// ---- joints ---------------------------------------------------------------------------------
const jointIndex = (j) => new Map(j.joints.map((x, i) => [x.node, i]));
const eJ = jointIndex(E);
const aJ = jointIndex(A);
const jname = (node) => {
	const x = E.joints[eJ.get(node)] || A.joints[aJ.get(node)];
	return x && x.name != null ? `${x.name} (node ${node})` : `node ${node}`;
};
const missingInA = [...eJ.keys()].filter((n) => !aJ.has(n));
const missingInE = [...aJ.keys()].filter((n) => !eJ.has(n));
if (missingInA.length) problems.push(`${missingInA.length} joints missing in ACTUAL: ${missingInA.map(jname).join(', ')}`);
if (missingInE.length) problems.push(`${missingInE.length} joints missing in EXPECTED: ${missingInE.map(jname).join(', ')}`);
const parentNode = (j, i) => (j.joints[i].parent == null ? null : j.joints[j.joints[i].parent]?.node ?? '?');
const parentDiffs = [];
for (const [n, ei] of eJ) {
	if (!aJ.has(n)) continue;
	const pe = parentNode(E, ei);
	const pa = parentNode(A, aJ.get(n));
	if (pe !== pa) parentDiffs.push(`${jname(n)}: parent ${pe} vs ${pa}`);
}
if (parentDiffs.length) problems.push(`${parentDiffs.length} joints with a different parent node: ${parentDiffs.slice(0, 10).join('; ')}`);

// ---- clips ----------------------------------------------------------------------------------
const eC = new Map((E.clips || []).map((c) => [c.name, c.duration]));
const aC = new Map((A.clips || []).map((c) => [c.name, c.duration]));
for (const [name, d] of eC) {
	if (!aC.has(name)) notes.push(`clip ${JSON.stringify(name)} listed only in EXPECTED`);
	else if (Math.abs(aC.get(name) - d) > opts.timeEps * Math.max(1, Math.abs(d))) problems.push(`clip ${JSON.stringify(name)}: duration ${d} vs ${aC.get(name)}`);
}
for (const name of aC.keys()) if (!eC.has(name)) notes.push(`clip ${JSON.stringify(name)} listed only in ACTUAL`);

// ---- samples --------------------------------------------------------------------------------
const sameTime = (a, b) => Math.abs(a - b) <= opts.timeEps * Math.max(1, Math.abs(a));
const label = (s) => `${JSON.stringify(s.clip)} @ ${s.time}`;
const used = new Set();
const pairs = [];
for (const es of E.samples) {
	const k = A.samples.findIndex((as, i) => !used.has(i) && as.clip === es.clip && sameTime(as.time, es.time));
	if (k < 0) problems.push(`sample ${label(es)} missing in ACTUAL`);
	else {
		used.add(k);
		pairs.push([es, A.samples[k]]);
	}
}
A.samples.forEach((as, i) => {
	if (!used.has(i)) problems.push(`sample ${label(as)} missing in EXPECTED`);
});

// Matrix error relative to the model size: a point p moved by M differs by
// |dL p| + |dt| <= |dL| |p| + |dt|, so we use  max|dL_ij| / s + max|dt_i| / diag,
// where s is the largest column norm of EXPECTED's 3x3 part (its scale) and dL includes row 4.
function matErr(me, ma) {
	let dl = 0;
	let dt = 0;
	let raw = 0;
	for (let i = 0; i < 16; i++) {
		const d = Math.abs(me[i] - ma[i]);
		if (!(d <= Infinity)) return { rel: Infinity, raw: Infinity }; // NaN
		raw = Math.max(raw, d);
		if (i >= 12 && i <= 14) dt = Math.max(dt, d);
		else dl = Math.max(dl, d);
	}
	const s = Math.max(Math.hypot(me[0], me[1], me[2]), Math.hypot(me[4], me[5], me[6]), Math.hypot(me[8], me[9], me[10]), 1e-12);
	return { rel: dl / s + dt / diag, raw };
}

const worst = {
	world: { rel: 0, raw: 0, where: '' },
	skin: { rel: 0, raw: 0, where: '' },
	pos: { rel: 0, raw: 0, where: '' },
};
const counts = { world: 0, skin: 0, pos: 0, prims: 0 };
const over = { world: 0, skin: 0, pos: 0 };
const skinMissing = [];
const primMissing = [];
const bump = (w, rel, raw, where) => {
	if (rel > w.rel || Number.isNaN(rel)) Object.assign(w, { rel, where });
	if (raw > w.raw) w.raw = raw;
};

for (const [es, as] of pairs) {
	for (const [n, ei] of eJ) {
		if (!aJ.has(n)) continue;
		const ai = aJ.get(n);
		const where = `${label(es)}, ${jname(n)}`;
		for (const key of ['world', 'skin']) {
			const me = es[key]?.[ei];
			const ma = as[key]?.[ai];
			if (me == null && ma == null) continue;
			if (me == null || ma == null) {
				if (key === 'skin') skinMissing.push(`${where}: skin matrix only in ${me == null ? 'ACTUAL' : 'EXPECTED'}`);
				else problems.push(`${where}: world matrix only in ${me == null ? 'ACTUAL' : 'EXPECTED'}`);
				continue;
			}
			const e = matErr(me, ma);
			counts[key]++;
			if (!(e.rel <= tol)) over[key]++;
			bump(worst[key], e.rel, e.raw, where);
		}
	}
	const eP = es.primitives;
	const aP = as.primitives;
	if (eP === undefined && aP === undefined) continue;
	if (eP === undefined || aP === undefined) {
		primMissing.push(`${label(es)}: positions only in ${eP === undefined ? 'ACTUAL' : 'EXPECTED'}`);
		continue;
	}
	const key = (p) => `${p.node}/${p.mesh}/${p.primitive}`;
	const aMap = new Map(aP.map((p) => [key(p), p]));
	const eKeys = new Set(eP.map(key));
	for (const p of eP) {
		const q = aMap.get(key(p));
		const where = `${label(es)}, primitive node/mesh/prim ${key(p)}`;
		if (!q) {
			primMissing.push(`${where} missing in ACTUAL`);
			continue;
		}
		if (q.positions.length !== p.positions.length) {
			problems.push(`${where}: ${p.positions.length} vertices vs ${q.positions.length}`);
			continue;
		}
		counts.prims++;
		p.positions.forEach((v, i) => {
			const w = q.positions[i];
			const d = Math.hypot(v[0] - w[0], v[1] - w[1], v[2] - w[2]);
			counts.pos++;
			if (!(d / diag <= tol)) over.pos++;
			bump(worst.pos, d / diag, d, `${where}, vertex ${i}`);
		});
	}
	for (const p of aP) if (!eKeys.has(key(p))) primMissing.push(`${label(es)}, primitive node/mesh/prim ${key(p)} missing in EXPECTED`);
}
const summarize = (list, what) => {
	if (list.length) problems.push(`${list.length} ${what}: ${list.slice(0, 8).join('; ')}${list.length > 8 ? '; ...' : ''}`);
};
summarize(skinMissing, 'skin matrices missing on one side');
summarize(primMissing, 'primitive sets missing on one side');

// ---- report ---------------------------------------------------------------------------------
const out = [];
out.push(`EXPECTED ${expFile}: ${E.joints.length} joints, ${E.samples.length} samples`);
out.push(`ACTUAL   ${actFile}: ${A.joints.length} joints, ${A.samples.length} samples`);
out.push(`scale: diagonal ${fmt(diag)} of ${diagSrc} in EXPECTED; tolerance ${tol} (relative)`);
out.push(`matched ${pairs.length} samples, ${[...eJ.keys()].filter((n) => aJ.has(n)).length} joints, ${counts.prims} primitive/sample pairs`);
for (const [k, title] of [['world', 'world matrices'], ['skin', 'skin matrices'], ['pos', 'positions']]) {
	const w = worst[k];
	const n = k === 'pos' ? counts.pos : counts[k];
	if (n === 0) {
		out.push(`${title.padEnd(15)} not compared`);
		continue;
	}
	const status = over[k] ? `FAIL (${over[k]} of ${n} over)` : 'ok';
	out.push(`${title.padEnd(15)} max rel ${fmt(w.rel)}  (max abs ${fmt(w.raw)})  ${status}${w.rel > 0 ? `  worst: ${w.where}` : ''}`);
	if (over[k]) problems.push(`${title}: ${over[k]} of ${n} exceed tolerance (max rel ${fmt(w.rel)} at ${w.where})`);
}
for (const n of notes) out.push(`note: ${n}`);
for (const p of problems) out.push(`FAIL: ${p}`);
out.push(problems.length ? `RESULT: FAIL (${problems.length} problem${problems.length > 1 ? 's' : ''})` : 'RESULT: OK');
process.stdout.write(out.join('\n') + '\n');
process.exitCode = problems.length ? 1 : 0; // not process.exit(): it could cut off piped stdout
