#!/usr/bin/env node
// Runs the Khronos glTF Validator on a .glb/.gltf file. See README.md.
import fs from 'node:fs';
import path from 'node:path';
import validator from 'gltf-validator';

const USAGE = 'usage: node validate.mjs FILE.(glb|gltf) [--all]   (--all also lists warnings, infos and hints)';
const SEVERITY = ['error', 'warning', 'info', 'hint'];

const args = process.argv.slice(2);
if (args.includes('-h') || args.includes('--help')) {
	fs.writeSync(1, USAGE + '\n');
	process.exit(0);
}
const all = args.includes('--all');
const files = args.filter((a) => a !== '--all');
const bad = files.find((a) => a.startsWith('-'));
if (bad || files.length !== 1) {
	fs.writeSync(2, `validate.mjs: error: ${bad ? `unknown option ${bad}` : 'expected one FILE'}\n${USAGE}\n`);
	process.exit(2);
}
const file = files[0];
if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
	fs.writeSync(2, `validate.mjs: error: no such file: ${file}\n`);
	process.exit(2);
}
const dir = path.dirname(path.resolve(file));

try {
	const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
		uri: path.basename(file),
		maxIssues: 0, // unlimited
		writeTimestamp: false,
		// External buffers / images next to the file (data: URIs are handled by the validator).
		externalResourceFunction: (uri) =>
			fs.promises.readFile(path.resolve(dir, decodeURIComponent(uri))).then(
				(data) => new Uint8Array(data),
				(err) => Promise.reject(`cannot read ${uri}: ${err.message}`),
			),
	});
	const is = report.issues;
	const info = report.info || {};
	process.stdout.write(`${file}: glTF Validator ${report.validatorVersion}\n`);
	if (info.version) {
		process.stdout.write(`  asset: version ${info.version}, generator ${JSON.stringify(info.generator ?? null)}, ` +
			`${info.animationCount ?? 0} animations, ${info.totalVertexCount ?? '?'} vertices, ${info.drawCallCount ?? '?'} draw calls, ` +
			`${info.maxInfluences ?? 0} max influences, extensions used: ${(info.extensionsUsed || []).join(', ') || 'none'}\n`);
	}
	process.stdout.write(`  ${is.numErrors} errors, ${is.numWarnings} warnings, ${is.numInfos} infos, ${is.numHints} hints` +
		`${is.truncated ? ' (truncated)' : ''}\n`);
	for (const m of is.messages) {
		if (m.severity !== 0 && !all) continue;
		process.stdout.write(`  ${SEVERITY[m.severity] ?? m.severity} ${m.code}: ${m.message}` +
			`${m.pointer ? ` at ${m.pointer}` : ''}${m.offset !== undefined ? ` (byte ${m.offset})` : ''}\n`);
	}
	// Summary: issues grouped by severity, code and pointer.
	const groups = new Map();
	for (const m of is.messages) {
		const k = `${SEVERITY[m.severity] ?? m.severity} ${m.code}${m.pointer ? ` at ${m.pointer}` : ''}`;
		groups.set(k, (groups.get(k) || 0) + 1);
	}
	if (groups.size) {
		process.stdout.write('  summary:\n');
		for (const [k, n] of [...groups].sort((a, b) => b[1] - a[1])) process.stdout.write(`    ${String(n).padStart(5)} x ${k}\n`);
	}
	// No process.exit() here: it would cut off stdout still queued for a pipe.
	process.exitCode = is.numErrors > 0 ? 1 : 0;
} catch (e) {
	process.stderr.write(`validate.mjs: error: validator could not process ${file}: ${e}\n`);
	process.exitCode = 1;
}
