// Tests of the independent reader on the committed fixtures tests/fixtures/format-1.0.throng
// and format-1.1.throng: they read (1.0 without and 1.1 with joint nodes, ground speeds and
// sources; 1.1 laid out again as 1.2 with a facing turn, as 1.3 with a skeleton LOD and as 1.4
// with impostors); every flipped byte and every truncation is refused; hand edits with their
// checksums recomputed are refused by the rule they break; and files re-laid out by the
// spec's writing rules (unknown sections, other orders, a newer minor) still read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { crc32, f16ToNumber, inspect, readThrong, texelMatrix, ThrongFormatError } from '../read.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURE = join(repo, 'tests/fixtures/format-1.0.throng');
const fixture = () => new Uint8Array(readFileSync(FIXTURE));
const FIXTURE_1_1 = join(repo, 'tests/fixtures/format-1.1.throng');
const fixture11 = () => new Uint8Array(readFileSync(FIXTURE_1_1));

/** Asserts that reading `bytes` throws a ThrongFormatError of `rule` (e.g. "baked 12"). */
function refused(bytes, rule, what = rule) {
  let error;
  try {
    readThrong(bytes, 'edited');
  } catch (e) {
    error = e;
  }
  assert.ok(error, `${what}: the file was accepted`);
  assert.ok(error instanceof ThrongFormatError, `${what}: ${error.stack}`);
  if (rule) assert.equal(error.rule, rule, `${what}: ${error.message}`);
  return error;
}

/** Rewrites the content CRC, then the header CRC, as the spec defines them. */
function fixCrcs(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  dv.setUint32(24, crc32(bytes, 64, bytes.length), true);
  dv.setUint32(60, crc32(bytes, 0, 60), true);
  return bytes;
}

/** A copy of a fixture (1.0 unless `of` says) with `edit(dataView, sections by kind)` applied and CRCs recomputed. */
function edited(edit, of = fixture) {
  const bytes = of();
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sec = Object.fromEntries(readThrong(of()).sections.map((s) => [s.kind, s]));
  edit(dv, sec, bytes);
  return fixCrcs(bytes);
}

/**
 * Lays a file out as the spec's "Writing" section says: header, table at 64, then each section
 * at the next multiple of its alignment, zero padding; CRCs filled in.
 */
function layOut(sections, { major = 1, minor = 0 } = {}) {
  const tableEnd = 64 + 32 * sections.length;
  let end = tableEnd;
  const placed = sections.map((s) => {
    const offset = Math.ceil(end / s.align) * s.align;
    end = offset + s.data.length;
    return { ...s, offset };
  });
  const bytes = new Uint8Array(end);
  const dv = new DataView(bytes.buffer);
  bytes.set([0x54, 0x48, 0x52, 0x4f, 0x4e, 0x47, 0x00, 0x1a]);
  dv.setUint16(8, major, true);
  dv.setUint16(10, minor, true);
  dv.setBigUint64(16, BigInt(end), true);
  dv.setUint32(28, sections.length, true);
  dv.setBigUint64(32, 64n, true);
  dv.setUint32(40, 64, true);
  placed.forEach((s, i) => {
    const at = 64 + 32 * i;
    bytes.set(Buffer.from(s.kind, 'latin1'), at);
    dv.setBigUint64(at + 8, BigInt(s.offset), true);
    dv.setBigUint64(at + 16, BigInt(s.data.length), true);
    dv.setUint32(at + 24, s.align, true);
    bytes.set(s.data, s.offset);
  });
  return fixCrcs(bytes);
}

/** A fixture's sections (1.0 unless `of` says) with their data, in table order. */
function fixtureSections(of = fixture) {
  const bytes = of();
  return readThrong(bytes).sections.map((s) => ({
    kind: s.kind,
    align: s.align,
    data: bytes.slice(s.offset, s.offset + s.size),
  }));
}

test('CRC-32 and f16 as the spec defines them', () => {
  assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
  assert.equal(f16ToNumber(0x3c00), 1);
  assert.equal(f16ToNumber(0xc000), -2);
  assert.equal(f16ToNumber(0x0001), 2 ** -24);
  assert.equal(f16ToNumber(0x7bff), 65504);
});

test('the committed fixture reads', () => {
  const f = readThrong(fixture(), 'format-1.0.throng');
  assert.deepEqual(f.version, { major: 1, minor: 0 });
  assert.equal(f.fileSize, 5056);
  assert.deepEqual(
    f.sections.map((s) => s.kind),
    ['INFO', 'STRS', 'CHAR', 'JOIN', 'ANIM', 'EVNT', 'MOTN', 'BNDS', 'MESH', 'IMAG', 'META', 'VERT', 'INDX', 'PIXL', 'TEXL'],
  );
  assert.equal(f.texelFormat, 'rgba32f');
  assert.equal(f.texelCount, 60);
  assert.equal(f.maxJoints, 2);
  assert.equal(f.characters.length, 1);
  const c = f.characters[0];
  assert.equal(c.name, 'tiny');
  assert.equal(c.height, 1);
  assert.deepEqual(c.joints.map((j) => [j.name, j.parent]), [['root', -1], ['child', 0]]);
  assert.deepEqual(
    c.anims.map((a) => [a.name, a.kind, a.param, a.paramValue, a.looping, a.rootMotion, a.duration, a.frameCount, a.firstTexel]),
    [
      ['test', 0, '', 0, true, true, 1, 4, 0],
      ['go', 1, 'pace', 1, true, true, 1, 4, 24],
      ['go', 1, 'pace', 2, true, true, 0.5, 2, 48],
    ],
  );
  // Root motion: frame 0 is zero; a looping clip's cycle motion is the record "after" the last.
  assert.deepEqual(c.anims[0].motion.map((m) => m.x), [0, 0.5, 1, 1.5]);
  assert.deepEqual(c.anims[0].cycleMotion, [2, 0, 0]);
  assert.deepEqual(c.anims[0].events.map((e) => [e.name, e.time]), [['step', 0.5]]);
  assert.equal(c.meshes.length, 1);
  assert.equal(c.meshes[0].name, 'body#0');
  assert.equal(c.meshes[0].indexCount, 3);
  assert.equal(f.metadata.tool.split(' ')[0], 'throng');
  assert.equal(f.metadata.inputs.length, 2);
  // Texels: 12 finite values per joint; the whole table is covered by the three animations.
  for (const a of f.anims) {
    for (let frame = 0; frame < a.frameCount; frame++) {
      for (let j = 0; j < a.jointCount; j++) {
        const m = texelMatrix(f, a.index, frame, j);
        assert.equal(m.length, 12);
        assert.ok(m.every(Number.isFinite));
      }
    }
  }
  assert.throws(() => texelMatrix(f, 0, 4, 0), RangeError);
  const shown = inspect(fixture(), 'fx');
  assert.equal(shown.file, 'fx');
  assert.equal(shown.version, '1.0');
  assert.deepEqual(shown.characters[0].anims[0].bounds, [[0, 1, 0], [1, 2, 0]]);
  assert.ok(!('param' in shown.characters[0].anims[0]));
  assert.ok(!('image' in shown.characters[0].meshes[0]));
  // Format 1.0 records no node, speed or source.
  assert.ok(c.joints.every((j) => j.node === null));
  assert.ok(c.anims.every((a) => a.groundSpeed === null && a.footSlide === null && a.source === null));
  assert.deepEqual(shown.characters[0].anims[0].source, null);
});

test('the committed 1.1 fixture reads, with joint nodes, ground speeds and sources', () => {
  const f = readThrong(fixture11(), 'format-1.1.throng');
  assert.deepEqual(f.version, { major: 1, minor: 1 });
  assert.deepEqual(
    f.sections.map((s) => s.kind),
    ['INFO', 'STRS', 'CHAR', 'JOIN', 'JNOD', 'ANIM', 'AEXT', 'AGLT', 'APRM', 'EVNT', 'MOTN', 'BNDS', 'MESH', 'IMAG', 'META', 'VERT', 'INDX', 'PIXL', 'TEXL'],
  );
  const c = f.characters[0];
  // Nodes 1 and 2 of the source glTF (node 0 holds the mesh).
  assert.deepEqual(c.joints.map((j) => [j.name, j.node]), [['root', 1], ['child', 2]]);
  // Ground speed from root motion: 2 m per 1 s cycle; the state plays it at paces 1 and 2.
  // f32 root motion sampled at 4 frames/s: within 1e-4 m/s.
  const speeds = c.anims.map((a) => a.groundSpeed);
  [2, 2, 4].forEach((want, i) => assert.ok(Math.abs(speeds[i] - want) < 1e-4, `${speeds}`));
  assert.ok(c.anims.every((a) => a.footSlide === null));
  // The clip came from glTF animation 0; the states name their state and parameters.
  assert.deepEqual(c.anims[0].source, { gltfAnimations: [0] });
  assert.deepEqual(c.anims[1].source, { state: 0, params: [{ name: 'pace', value: 1 }] });
  assert.deepEqual(c.anims[2].source, { state: 0, params: [{ name: 'pace', value: 2 }] });
  const shown = inspect(fixture11(), 'fx');
  assert.equal(shown.version, '1.1');
  assert.deepEqual(shown.characters[0].joints[1], { name: 'child', parent: 0, node: 2 });
  assert.equal(shown.characters[0].anims[0].foot_slide, null);
  assert.deepEqual(shown.characters[0].anims[2].source, { state: 0, params: [{ name: 'pace', value: 2 }] });
  // Relabelled 1.0, the 1.1 sections are skipped: nothing of them is read.
  const old = inspect(edited((dv) => dv.setUint16(10, 0, true), fixture11), 'fx');
  assert.ok(old.characters[0].anims.every((a) => a.ground_speed === null && a.source === null));
  assert.ok(old.characters[0].joints.every((j) => j.node === null));
});

// One edit of the 1.1 fixture per 1.1 rule, CRCs recomputed, each refused by the rule it breaks.
const RULE_EDITS_1_1 = [
  ['baked 35', (dv, sec, b) => b.set(Buffer.from('JNOX'), 64 + 32 * 4)], // no JNOD
  ['baked 35', (dv) => dv.setBigUint64(64 + 32 * 4 + 16, 4n, true)], // JNOD: 1 node for 2 joints
  ['baked 35', (dv) => dv.setBigUint64(64 + 32 * 6 + 16, 95n, true)], // AEXT not whole records
  ['baked 36', (dv, sec) => dv.setUint32(sec.AEXT.offset, 4, true)], // unknown flag
  ['baked 36', (dv, sec) => dv.setFloat32(sec.AEXT.offset + 4, NaN, true)], // ground speed NaN
  ['baked 36', (dv, sec) => { // foot slide present and negative
    dv.setUint32(sec.AEXT.offset + 32, 3, true);
    dv.setFloat32(sec.AEXT.offset + 32 + 8, -1, true);
  }],
  ['baked 37', (dv, sec) => dv.setUint32(sec.AEXT.offset + 12, 0, true)], // a clip with a state
  ['baked 37', (dv, sec) => dv.setUint32(sec.AEXT.offset + 32 + 20, 1, true)], // a state with glTF sources
  ['baked 38', (dv, sec) => dv.setUint32(sec.AEXT.offset + 2 * 32 + 24, 0, true)], // params not in order
  ['baked 38', (dv, sec) => dv.setUint32(sec.AEXT.offset + 2 * 32 + 28, 9, true)], // past APRM
  ['baked 38', (dv, sec) => dv.setUint32(sec.AEXT.offset + 2 * 32 + 28, 0, true)], // an APRM record left over
  ['baked 7', (dv, sec) => dv.setUint32(sec.APRM.offset, 0xffff, true)], // parameter name past STRS
  ['baked 39', (dv, sec) => dv.setFloat32(sec.APRM.offset + 12 + 8, Infinity, true)],
];

test('each 1.1 reading rule refuses the edit that breaks it', () => {
  for (const [rule, edit] of RULE_EDITS_1_1) refused(edited(edit, fixture11), rule, `${rule}: ${edit}`);
});

/** A CEXT section (format 1.2) with these facing turns, one 16-byte record each. */
function cext(turns) {
  const data = new Uint8Array(16 * turns.length);
  turns.forEach((k, i) => new DataView(data.buffer).setUint32(16 * i, k, true));
  return { kind: 'CEXT', align: 8, data };
}

test('format 1.2: the facing turn is read, and checked by rules 40 and 41', () => {
  const sections = fixtureSections(fixture11);
  const f = readThrong(layOut([...sections, cext([2])], { minor: 2 }), 'turned');
  assert.equal(f.characters[0].facingTurns, 2);
  assert.equal(inspect(layOut([...sections, cext([2])], { minor: 2 }), 'f').characters[0].facing_turns, 2);
  // Older files record none: 0. A 1.1 file's CEXT, whatever it holds, is skipped.
  assert.equal(readThrong(fixture11()).characters[0].facingTurns, 0);
  assert.equal(readThrong(layOut([...sections, cext([9])], { minor: 1 })).characters[0].facingTurns, 0);
  refused(layOut([...sections, cext([4])], { minor: 2 }), 'baked 41', 'four quarter turns');
  refused(layOut(sections, { minor: 2 }), 'baked 40', 'no CEXT');
  refused(layOut([...sections, cext([0, 0])], { minor: 2 }), 'baked 40', 'a record too many');
  const cut = cext([1]);
  refused(layOut([...sections, { ...cut, data: cut.data.slice(0, 12) }], { minor: 2 }), 'baked 40', 'a cut record');
});

/** Every joint of every level of every character of a fixture kept: its JLOD entries. */
function identityLevels(of) {
  return readThrong(of()).characters.flatMap((c) => Array.from({ length: c.lodCount }, () => Array.from({ length: c.jointCount }, (_, j) => j)).flat());
}

/** A JLOD section (format 1.3) with these entries. */
function jlod(entries) {
  const data = new Uint8Array(4 * entries.length);
  entries.forEach((k, i) => new DataView(data.buffer).setUint32(4 * i, k, true));
  return { kind: 'JLOD', align: 8, data };
}

test('format 1.3: skeleton LOD is read, and checked by rules 42 and 43', () => {
  const sections = [...fixtureSections(fixture11), cext([0])];
  const ch = readThrong(fixture11()).characters[0];
  // The fixture's character: two joints (root, child), at least one level.
  assert.equal(ch.jointCount, 2);
  assert.ok(ch.lodCount >= 1);
  const levels = (map) => Array.from({ length: ch.lodCount }, (_, l) => (l === ch.lodCount - 1 ? map : [0, 1])).flat();
  const collapsed = layOut([...sections, jlod(levels([0, 0]))], { minor: 3 });
  const f = readThrong(collapsed, 'collapsed');
  assert.deepEqual(f.characters[0].lodJoints.at(-1), [0, 0]);
  const counts = inspect(collapsed, 'f').characters[0].lod_joint_counts;
  assert.equal(counts.at(-1), 1);
  // Older files keep every joint; a 1.2 file's JLOD, whatever it holds, is skipped.
  assert.deepEqual(readThrong(fixture11()).characters[0].lodJoints.at(-1), [0, 1]);
  const skipped = layOut([...sections, jlod([7])], { minor: 2 });
  assert.deepEqual(readThrong(skipped).characters[0].lodJoints.at(-1), [0, 1]);
  refused(layOut(sections, { minor: 3 }), 'baked 42', 'no JLOD');
  refused(layOut([...sections, jlod([...levels([0, 1]), 0])], { minor: 3 }), 'baked 42', 'an entry too many');
  const cut = jlod(levels([0, 1]));
  refused(layOut([...sections, { ...cut, data: cut.data.slice(0, cut.data.length - 2) }], { minor: 3 }), 'baked 42', 'a cut entry');
  refused(layOut([...sections, jlod(levels([1, 1]))], { minor: 3 }), 'baked 43', 'a root drawn with its child');
  refused(layOut([...sections, jlod(levels([0, 2]))], { minor: 3 }), 'baked 43', 'a joint past the character');
});

/** The 1.4 sections of a fixture without impostors. */
function noImpostors(of) {
  const f = readThrong(of());
  const none = { views: 0, cell: 0, frameCount: 0, level: 0, centre: [0, 0, 0], radius: 0, firstPixel: 0 };
  return impostorSections(f.characters.map(() => none), f.anims.map(() => [0, 0]), 0);
}

/** IMPO, IMPA and IMPX sections (format 1.4): one 48-byte record per entry of `records`
 * ({views, cell, frameCount, level, centre, radius, firstPixel, reserved}), one 8-byte record per
 * [firstFrame, frameCount] of `anims`, and `pixels` bytes. */
function impostorSections(records, anims, pixels) {
  const impo = new Uint8Array(48 * records.length);
  const dv = new DataView(impo.buffer);
  records.forEach((r, i) => {
    const at = 48 * i;
    [r.views, r.cell, r.frameCount, r.level].forEach((v, k) => dv.setUint32(at + 4 * k, v, true));
    [...r.centre, r.radius].forEach((v, k) => dv.setFloat32(at + 16 + 4 * k, v, true));
    dv.setBigUint64(at + 32, BigInt(r.firstPixel), true);
    (r.reserved ?? [0, 0]).forEach((v, k) => dv.setUint32(at + 40 + 4 * k, v, true));
  });
  const impa = new Uint8Array(8 * anims.length);
  anims.forEach(([first, count], i) => {
    new DataView(impa.buffer).setUint32(8 * i, first, true);
    new DataView(impa.buffer).setUint32(8 * i + 4, count, true);
  });
  return [
    { kind: 'IMPO', align: 8, data: impo },
    { kind: 'IMPA', align: 8, data: impa },
    { kind: 'IMPX', align: 16, data: new Uint8Array(pixels) },
  ];
}

test('format 1.4: impostors are read, and checked by rules 44 to 47', () => {
  const f11 = readThrong(fixture11());
  const older = [...fixtureSections(fixture11), cext([0]), jlod(identityLevels(fixture11))];
  const anims = f11.anims;
  // A 3 × 3 atlas of 2 px cells: 288 bytes a frame; each animation 2 frames, after 64 bytes.
  const frames = anims.map((a, i) => [2 * i, 2]);
  const record = { views: 3, cell: 2, frameCount: 2 * anims.length, level: 0, centre: [0.25, 0.5, -0.125], radius: 0.75, firstPixel: 64 };
  const bytes = 64 + record.frameCount * 288;
  const file = (r = {}, fr = frames, px = bytes) => layOut([...older, ...impostorSections([{ ...record, ...r }], fr, px)], { minor: 4 });
  const f = readThrong(file(), 'atlas');
  assert.deepEqual(f.characters[0].impostor, { ...record, firstPixel: 64n });
  assert.deepEqual(f.anims[1].impostor, { firstFrame: 2, frameCount: 2 });
  const json = inspect(file(), 'f').characters[0];
  assert.deepEqual(json.impostor, { views: 3, cell: 2, frame_count: record.frameCount, level: 0, centre: [0.25, 0.5, -0.125], radius: 0.75, first_pixel: 64 });
  assert.deepEqual(json.anims[1].impostor, { first_frame: 2, frame_count: 2 });
  // None: views 0 and every animation 0 frames, as every older file (whose sections are skipped).
  const none = layOut([...older, ...impostorSections([{ views: 0, cell: 0, frameCount: 0, level: 0, centre: [0, 0, 0], radius: 0, firstPixel: 0 }], anims.map(() => [0, 0]), 0)], { minor: 4 });
  assert.equal(readThrong(none).characters[0].impostor, null);
  assert.deepEqual(readThrong(none).anims[0].impostor, { firstFrame: 0, frameCount: 0 });
  const skipped = layOut([...older, ...impostorSections([{ ...record, views: 4 }], [], 0)], { minor: 3 });
  assert.equal(readThrong(skipped).characters[0].impostor, null);
  // Rule 44.
  refused(layOut(older, { minor: 4 }), 'baked 44', 'no IMPO');
  refused(layOut([...older, ...impostorSections([record, record], frames, bytes)], { minor: 4 }), 'baked 44', 'a record too many');
  refused(file({}, frames.slice(1)), 'baked 44', 'an animation record too few');
  // Rule 45.
  refused(layOut([...older, ...impostorSections([{ ...record, views: 0, cell: 0, level: 0, firstPixel: 0, frameCount: 0 }], frames, bytes)], { minor: 4 }), 'baked 45', 'frames without impostors');
  for (const [edit, what] of [
    [{ views: 4 }, 'even views'], [{ views: 35 }, '35 views'], [{ cell: 0 }, 'cell 0'], [{ cell: 257 }, 'cell 257'],
    [{ radius: 0 }, 'radius 0'], [{ centre: [NaN, 0, 0] }, 'a NaN centre'], [{ frameCount: 0 }, '0 frames'],
    [{ level: 1 }, 'a level past the LODs'], [{ reserved: [0, 9] }, 'reserved'],
  ]) refused(file(edit), 'baked 45', what);
  // Rule 46: a clamped animation with one frame; frames past the character's.
  const clamped = anims.findIndex((a) => !a.looping);
  if (clamped >= 0) refused(file({}, frames.map((fr, i) => (i === clamped ? [fr[0], 1] : fr))), 'baked 46', 'one clamped frame');
  refused(file({}, frames.map((fr, i) => (i === 0 ? [0, 0] : fr))), 'baked 46', 'no frames');
  refused(file({}, frames.map((fr, i) => (i === anims.length - 1 ? [fr[0], 3] : fr))), 'baked 46', 'past the frames');
  // Rule 47: unaligned, short, and sizes past 2^64.
  refused(file({ firstPixel: 66 }), 'baked 47', 'an unaligned start');
  refused(file({}, frames, bytes - 4), 'baked 47', 'pixels too few');
  refused(file({ firstPixel: (1n << 64n) - 4n }), 'baked 47', 'a start near 2^64');
});

test('laying the fixture out again by the spec gives the same bytes', () => {
  assert.deepEqual(layOut(fixtureSections()), fixture());
});

test('unknown section kinds, another section order and a newer minor are accepted', () => {
  const expected = inspect(fixture(), 'f');
  const sections = fixtureSections();
  const extra = { kind: 'ZZ~!', align: 64, data: new Uint8Array([1, 2, 3]) };
  const variants = [
    [layOut([...sections, extra]), expected],
    [layOut([extra, ...sections.slice().reverse()]), expected],
    // A newer minor than 1.4 must hold 1.1's to 1.4's sections: the 1.1 fixture's, a facing
    // record of its one character, its skeleton LOD (every joint kept) and no impostors.
    [layOut([...fixtureSections(fixture11), cext([0]), jlod(identityLevels(fixture11)), ...noImpostors(fixture11), extra], { minor: 7 }), inspect(fixture11(), 'f')],
  ];
  for (const [v, want] of variants) {
    const got = inspect(v, 'f');
    // Only the section list and version may differ.
    for (const key of ['characters', 'images', 'metadata', 'texel_count', 'texel_format', 'max_joints']) {
      assert.deepEqual(got[key], want[key], key);
    }
  }
  assert.equal(inspect(variants[2][0], 'f').version, '1.7');
  // The 1.0 fixture's sections under a minor of 1 or more lack 1.1's: refused.
  refused(layOut(sections, { minor: 1 }), 'baked 35');
  // Non-zero flags and reserved fields are ignored.
  const flagged = edited((dv, sec) => {
    dv.setUint32(12, 0xffffffff, true); // header flags
    dv.setUint32(44, 0xdeadbeef, true); // header reserved
    dv.setUint32(64 + 4, 7, true); // section flags
    dv.setUint32(64 + 28, 7, true); // section reserved
    dv.setUint32(sec.INFO.offset + 16, 9, true); // INFO reserved
    dv.setUint32(sec.CHAR.offset + 40, 9, true); // CharacterRecord reserved
    dv.setUint32(sec.JOIN.offset + 12, 9, true); // JointRecord reserved
    dv.setUint32(sec.ANIM.offset + 88, 9, true); // AnimRecord reserved
    dv.setUint32(sec.MESH.offset + 68, 9, true); // MeshRecord reserved
  });
  assert.deepEqual(inspect(flagged, 'f').characters, expected.characters);
});

test('every flipped byte is refused', () => {
  const original = fixture();
  for (let i = 0; i < original.length; i++) {
    for (const mask of [0xff, 0x01, 0x80]) {
      const bytes = original.slice();
      bytes[i] ^= mask;
      const e = refused(bytes, null, `byte ${i} ^ ${mask}`);
      // Past the header, only the content CRC can catch a flip; in it, the magic, the major
      // version or the header CRC.
      if (i >= 64) assert.equal(e.rule, 'container 4', `byte ${i}: ${e.message}`);
      else assert.match(e.rule, /^container [123]$/, `byte ${i}: ${e.message}`);
    }
  }
});

test('every truncation, and an appended byte, is refused', () => {
  const original = fixture();
  for (let n = 0; n < original.length; n++) {
    const e = refused(original.subarray(0, n), null, `first ${n} bytes`);
    assert.equal(e.rule, n < 64 ? 'container 1' : 'container 3', `${n} bytes: ${e.message}`);
  }
  const longer = new Uint8Array(original.length + 1);
  longer.set(original);
  refused(longer, 'container 3');
});

test('a parent index pointing forward is refused by baked rule 12', () => {
  const e = refused(edited((dv, sec) => dv.setInt32(sec.JOIN.offset + 8, 1, true)), 'baked 12');
  assert.match(e.message, /parent 1/);
  // A joint that is its own parent, and a parent below -1.
  refused(edited((dv, sec) => dv.setInt32(sec.JOIN.offset + 80 + 8, 1, true)), 'baked 12');
  refused(edited((dv, sec) => dv.setInt32(sec.JOIN.offset + 80 + 8, -2, true)), 'baked 12');
});

test('a newer major version is refused with both versions named', () => {
  const e = refused(edited((dv) => dv.setUint16(8, 2, true)), 'container 2');
  assert.match(e.message, /format 2\.0/);
  assert.match(e.message, /1\.x/);
});

// One edit per rule, CRCs recomputed, each refused by the rule it breaks.
const RULE_EDITS = [
  ['container 1', (dv, sec, b) => { b[7] = 0; }],
  ['container 3', (dv) => dv.setBigUint64(16, 5055n, true)],
  ['container 5', (dv) => dv.setUint32(40, 65, true)],
  ['container 5', (dv) => dv.setBigUint64(32, 32n, true)],
  ['container 5', (dv) => dv.setUint32(28, 1000, true)],
  ['container 5', (dv) => dv.setBigUint64(32, 0xffffffffffffffffn, true)],
  ['container 6', (dv) => dv.setUint8(64 + 3, 0x20)], // "INF " : not printable
  ['container 6', (dv) => dv.setUint32(64 + 24, 3, true)], // alignment 3
  ['container 6', (dv) => dv.setUint32(64 + 24, 8192, true)], // alignment 8192
  ['container 6', (dv) => dv.setUint32(64 + 32 * 14 + 24, 8192, true)], // TEXL alignment 8192
  ['container 6', (dv) => dv.setBigUint64(64 + 32 * 14 + 16, 0xffffffffffffff00n, true)], // size overflows
  ['container 6', (dv) => dv.setBigUint64(64 + 32 * 14 + 16, 961n, true)], // past the end
  ['container 6', (dv) => dv.setBigUint64(64 + 8, 512n, true)], // INFO inside the table
  ['container 6', (dv) => dv.setBigUint64(64 + 32 + 8, 575n, true)], // STRS overlaps INFO
  ['container 6', (dv) => dv.setBigUint64(64 + 32 * 2 + 8, 620n, true)], // CHAR misaligned
  ['container 6', (dv, sec, b) => b.set(Buffer.from('INFO'), 64 + 32)], // two INFOs
  ['baked 1', (dv, sec, b) => b.set(Buffer.from('INFX'), 64)],
  ['baked 2', (dv, sec) => dv.setUint32(sec.INFO.offset, 3, true)],
  ['baked 2', (dv) => dv.setBigUint64(64 + 16, 24n, true)], // INFO 24 bytes
  ['baked 3', (dv) => dv.setBigUint64(64 + 32 * 2 + 16, 40n, true)], // CHAR 40 bytes
  ['baked 3', (dv) => dv.setBigUint64(64 + 32 * 6 + 16, 116n, true)], // MOTN 116 bytes
  ['baked 4', (dv) => dv.setBigUint64(64 + 32 * 11 + 16, 164n, true)], // VERT 164 bytes
  ['baked 4', (dv) => dv.setBigUint64(64 + 32 * 12 + 16, 10n, true)], // INDX 10 bytes
  ['baked 4', (dv) => {
    dv.setBigUint64(64 + 32 * 12 + 8, 2610n, true); // INDX at 2610 (align 2)
    dv.setUint32(64 + 32 * 12 + 24, 2, true);
    dv.setBigUint64(64 + 32 * 12 + 16, 4n, true);
  }],
  ['baked 5', (dv, sec) => dv.setBigUint64(sec.INFO.offset + 8, 59n, true)],
  ['baked 5', (dv, sec) => dv.setBigUint64(sec.INFO.offset + 8, 1n << 60n, true)], // × 16 overflows
  ['baked 6', (dv, sec) => dv.setFloat32(sec.TEXL.offset + 4 * 7, NaN, true)],
  ['baked 6', (dv, sec) => dv.setFloat32(sec.TEXL.offset + 959 - 3, -Infinity, true)],
  ['baked 7', (dv, sec) => dv.setUint32(sec.CHAR.offset + 4, 34, true)], // name past STRS (33 bytes)
  ['baked 7', (dv, sec) => dv.setUint32(sec.CHAR.offset, 0xffffffff, true)], // offset overflows
  ['baked 7', (dv, sec, b) => { b[sec.STRS.offset] = 0xff; }], // "tiny" not UTF-8
  ['baked 7', (dv, sec) => dv.setUint32(sec.ANIM.offset + 96 + 44, 40, true)], // param past STRS
  ['baked 7', (dv, sec) => dv.setUint32(sec.EVNT.offset + 8, 40, true)], // event name
  ['baked 7', (dv, sec) => dv.setUint32(sec.MESH.offset + 4, 40, true)], // mesh name
  ['baked 8', (dv, sec) => dv.setUint32(sec.CHAR.offset + 12, 0, true)],
  ['baked 8', (dv, sec) => dv.setUint32(sec.CHAR.offset + 12, 65537, true)],
  ['baked 9', (dv, sec) => dv.setUint32(sec.CHAR.offset + 8, 1, true)],
  ['baked 9', (dv, sec) => dv.setUint32(sec.CHAR.offset + 12, 3, true)], // 3 joints > 2 records
  ['baked 9', (dv, sec) => dv.setUint32(sec.CHAR.offset + 20, 4, true)],
  ['baked 9', (dv, sec) => dv.setUint32(sec.CHAR.offset + 24, 1, true)],
  ['baked 9', (dv, sec) => dv.setUint32(sec.CHAR.offset + 32, 0x10000, true)], // 1 × 65536 meshes
  ['baked 10', (dv, sec) => dv.setUint32(sec.CHAR.offset + 32, 0, true)],
  ['baked 11', (dv, sec) => dv.setFloat32(sec.CHAR.offset + 36, 0, true)],
  ['baked 11', (dv, sec) => dv.setFloat32(sec.CHAR.offset + 36, -1, true)],
  ['baked 11', (dv, sec) => dv.setFloat32(sec.CHAR.offset + 36, Infinity, true)],
  ['baked 13', (dv, sec) => dv.setFloat32(sec.JOIN.offset + 80 + 16 + 4 * 13, NaN, true)],
  ['baked 14', (dv, sec) => dv.setUint32(sec.ANIM.offset + 96 + 8, 1, true)],
  ['baked 15', (dv, sec) => dv.setUint32(sec.ANIM.offset + 12, 2, true)],
  ['baked 15', (dv, sec) => dv.setUint32(sec.ANIM.offset + 16, 7, true)],
  ['baked 16', (dv, sec) => dv.setUint32(sec.ANIM.offset + 20, 0, true)],
  ['baked 17', (dv, sec) => dv.setFloat32(sec.ANIM.offset + 32, -1, true)], // duration
  ['baked 17', (dv, sec) => dv.setFloat32(sec.ANIM.offset + 36, NaN, true)], // fps
  ['baked 17', (dv, sec) => dv.setFloat32(sec.ANIM.offset + 48, Infinity, true)], // param_value
  ['baked 17', (dv, sec) => dv.setFloat32(sec.ANIM.offset + 72, NaN, true)], // cycle yaw
  ['baked 17', (dv, sec) => dv.setFloat32(sec.ANIM.offset + 84, -0.5, true)], // precision_error
  ['baked 18', (dv, sec) => dv.setBigUint64(sec.ANIM.offset + 2 * 96 + 24, 49n, true)],
  ['baked 18', (dv, sec) => dv.setBigUint64(sec.ANIM.offset + 2 * 96 + 24, 0xfffffffffffffff0n, true)],
  ['baked 18', (dv, sec) => dv.setBigUint64(sec.ANIM.offset + 24, 1n, true)], // not at a whole matrix
  ['baked 19', (dv, sec) => dv.setUint32(sec.ANIM.offset + 2 * 96 + 76, 9, true)],
  ['baked 20', (dv, sec) => dv.setUint32(sec.ANIM.offset + 2 * 96 + 60, 9, true)],
  ['baked 21', (dv, sec) => dv.setUint32(sec.ANIM.offset + 2 * 96 + 56, 2, true)], // past EVNT
  ['baked 21', (dv, sec) => dv.setUint32(sec.EVNT.offset + 16, 0, true)], // wrong anim
  ['baked 21', (dv, sec) => dv.setFloat32(sec.EVNT.offset + 12, 1.5, true)], // after duration
  ['baked 21', (dv, sec) => dv.setFloat32(sec.EVNT.offset + 12, NaN, true)],
  ['baked 21', (dv, sec) => { // events out of order: anim 0 has none, anim 1 starts at 1
    dv.setUint32(sec.ANIM.offset + 56, 0, true);
  }],
  ['baked 22', (dv, sec) => dv.setUint32(sec.MESH.offset + 8, 1, true)],
  ['baked 22', (dv, sec) => dv.setUint32(sec.MESH.offset + 16, 1, true)],
  ['baked 23', (dv, sec) => dv.setUint32(sec.MESH.offset + 20, 2, true)],
  ['baked 24', (dv, sec) => dv.setFloat32(sec.MESH.offset + 24, 0, true)],
  ['baked 24', (dv, sec) => dv.setFloat32(sec.MESH.offset + 24, 1.5, true)],
  ['baked 24', (dv, sec) => dv.setFloat32(sec.MESH.offset + 28, -1, true)],
  ['baked 24', (dv, sec) => dv.setFloat32(sec.MESH.offset + 60, NaN, true)],
  ['baked 25', (dv, sec) => dv.setUint32(sec.MESH.offset + 64, 0, true)],
  ['baked 26', (dv, sec) => dv.setUint32(sec.MESH.offset + 36, 4, true)],
  ['baked 26', (dv, sec) => dv.setUint32(sec.MESH.offset + 40, 1, true)],
  ['baked 26', (dv, sec) => dv.setUint32(sec.MESH.offset + 44, 2, true)],
  ['baked 27', (dv, sec) => dv.setUint32(sec.INDX.offset + 8, 3, true)],
  ['baked 28', (dv, sec) => dv.setFloat32(sec.VERT.offset + 56 + 28, NaN, true)], // uv.y
  ['baked 28', (dv, sec) => dv.setFloat32(sec.VERT.offset + 56 + 52, Infinity, true)], // weight 3
  ['baked 28', (dv, sec) => dv.setUint16(sec.VERT.offset + 2 * 56 + 38, 2, true)], // joint 3
  ['baked 29', (dv, sec) => dv.setUint32(sec.CHAR.offset + 20, 2, true)], // 1 animation left over
  ['baked 30', (dv, sec) => dv.setUint32(sec.INFO.offset + 4, 3, true)],
  ['baked 31', (dv, sec) => dv.setFloat32(sec.BNDS.offset + 9 * 24, 5, true)], // min > max
  ['baked 31', (dv, sec) => dv.setFloat32(sec.BNDS.offset + 9 * 24 + 20, NaN, true)],
  ['baked 32', (dv, sec) => dv.setFloat32(sec.MOTN.offset + 9 * 12 + 8, Infinity, true)],
  ['baked 34', (dv, sec, b) => { b[sec.META.offset + 5] = 0x00; }], // not JSON
  ['baked 34', (dv, sec, b) => { b[sec.META.offset] = 0x5b; }], // '[' : not an object
  ['baked 34', (dv, sec, b) => { b[sec.META.offset + 3] = 0x58; }], // an X before the first key
];

test('each reading rule refuses the edit that breaks it', () => {
  for (const [rule, edit] of RULE_EDITS) refused(edited(edit), rule, `${rule}: ${edit}`);
});

/** The fixture with its META replaced by `text` (laid out again). */
function withMeta(text) {
  return layOut(fixtureSections().map((s) => (s.kind === 'META' ? { ...s, data: Buffer.from(text) } : s)));
}

test('META: every key once with its type, unknown keys ignored, no key twice anywhere', () => {
  const meta = JSON.parse(Buffer.from(fixtureSections().find((s) => s.kind === 'META').data).toString());
  const text = (m) => JSON.stringify(m);
  assert.deepEqual(readThrong(withMeta(` \n${text(meta)}\t\r\n`)).metadata, meta);
  assert.deepEqual(readThrong(withMeta(text({ ...meta, extra: [1, { x: null }] }))).metadata, meta);
  // The optional reasons for missing ground speeds: kept when they list something.
  const reasons = [{ anim: 0, why: 'foot 0 never lifts' }, { anim: 4294967295, why: '' }];
  assert.deepEqual(readThrong(withMeta(text({ ...meta, no_ground_speed: reasons }))).metadata, { ...meta, no_ground_speed: reasons });
  assert.deepEqual(readThrong(withMeta(text({ ...meta, no_ground_speed: [] }))).metadata, meta);
  const largest = text(meta).replace(/"bytes":(\d+)/, '"bytes":18446744073709551615'); // 2^64 - 1
  assert.equal(readThrong(withMeta(largest)).metadata.inputs.length, 2);
  const bad = [
    `\uFEFF${text(meta)}`, // byte-order mark
    `${text(meta)} x`,
    text({ ...meta, tool: 1 }),
    text({ ...meta, precision_budget: '0.1' }),
    text({ ...meta, inputs: {} }),
    text({ ...meta, inputs: [{ ...meta.inputs[0], bytes: -1 }] }),
    text({ ...meta, inputs: [{ ...meta.inputs[0], bytes: 1.5 }] }),
    text({ ...meta, inputs: [{ path: 'a', sha256: 'b' }] }),
    text(meta).replace(/}$/, ', "tool": "again"}'), // a key twice
    text({ ...meta, extra: { a: 1 } }).replace('"a":1', '"a":1,"a":2'), // an unknown key twice, nested
    text(meta).replace(/"bytes":(\d+)/, '"bytes":18446744073709551616'), // 2^64
    text({ ...meta, no_ground_speed: {} }),
    text({ ...meta, no_ground_speed: [{ anim: 0 }] }),
    text({ ...meta, no_ground_speed: [{ anim: -1, why: 'x' }] }),
    text({ ...meta, no_ground_speed: [{ anim: 4294967296, why: 'x' }] }), // 2^32
    text({ ...meta, no_ground_speed: [{ anim: 0, why: 1 }] }),
  ];
  for (const t of bad) refused(withMeta(t), 'baked 34', t.slice(0, 40));
  const notUtf8 = Buffer.concat([Buffer.from(text(meta).slice(0, -1)), Buffer.from(',"x":"\xff"}', 'latin1')]);
  refused(withMeta(notUtf8), 'baked 34', 'not UTF-8');
});

test('the worked example of docs/FORMAT.md, when bake/mannequin.throng is that bake', (t) => {
  // CI (THRONG_REQUIRE_REFERENCE=1) bakes the file first: there a missing file or another
  // bake means the example in docs/FORMAT.md went stale, which fails.
  const required = process.env.THRONG_REQUIRE_REFERENCE === '1';
  const path = join(repo, 'bake/mannequin.throng');
  if (!existsSync(path)) {
    assert.ok(!required, 'bake/mannequin.throng is missing; run throng bake first');
    return t.skip('bake/mannequin.throng is not baked');
  }
  const bytes = new Uint8Array(readFileSync(path));
  const dv = new DataView(bytes.buffer, bytes.byteOffset);
  if (dv.getUint32(24, true) !== 0x24271f6e) {
    assert.ok(!required, `bake/mannequin.throng has content CRC ${dv.getUint32(24, true).toString(16)}, not the worked example's 24271f6e: docs/FORMAT.md's example is stale`);
    return t.skip('bake/mannequin.throng is another bake');
  }
  const f = readThrong(bytes, 'mannequin.throng');
  const a = f.anims[5];
  assert.deepEqual([a.name, a.param, Math.fround(1.2) === a.paramValue, a.frameCount, a.firstTexel], ['greet', 'speed', true, 60, 19950]);
  assert.deepEqual([a.duration, a.fps], [2, 30]);
  assert.deepEqual([a.firstEvent, a.eventCount], [10, 6]);
  assert.deepEqual([a.events[0].name, a.events[0].time], ['foot_l', 0]);
  // Format 1.2: the mannequin walks along +z: no facing turn.
  assert.equal(f.version.minor, 4);
  assert.equal(f.characters[0].facingTurns, 0);
  // Format 1.4: animated impostors of 9 × 9 views of 16 pixels, 144 frames drawn from LOD 3;
  // walk's are the character's frames 16 to 23.
  const imp = f.characters[0].impostor;
  assert.deepEqual([imp.views, imp.cell, imp.frameCount, imp.level, imp.firstPixel], [9, 16, 144, 3, 0n]);
  assert.equal(f.anims[1].name, 'walk');
  assert.deepEqual(f.anims[1].impostor, { firstFrame: 16, frameCount: 8 });
  const impx = f.sections.find((x) => x.kind === 'IMPX');
  assert.deepEqual([impx.offset, impx.size, f.fileSize], [764352, 144 * 2 * (9 * 16) ** 2 * 4, 24652224]);
  // Format 1.3: LOD 1 draws shoulder_l with chest and hand_l with forearm_l; LOD 2 also neck;
  // LOD 3 folds the chest into the spine and the hands into the forearms; LOD 4 the upper body into the hips.
  const changed = (l) => f.characters[0].lodJoints[l].flatMap((k, j) => (k === j ? [] : [[j, k]]));
  assert.equal(f.characters[0].lodJoints.length, 5);
  assert.deepEqual([changed(0), changed(1), changed(2)], [[], [[5, 2], [8, 7]], [[3, 2], [5, 2], [8, 7]]]);
  assert.deepEqual(changed(3), [[2, 1], [4, 3], [5, 1], [8, 7], [9, 1], [12, 11]]);
  assert.deepEqual(changed(4), [[1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [6, 0], [8, 7], [9, 0], [12, 11]]);
  // Format 1.1: the head's node, the state's ground speed and its parameter values.
  assert.equal(f.characters[0].joints[4].name, 'head');
  assert.equal(f.characters[0].joints[4].node, 5);
  assert.deepEqual([Math.fround(1.2) === a.groundSpeed, Number(a.footSlide.toPrecision(5))], [true, 0.0047534]);
  assert.deepEqual(
    [a.source.state, a.source.params.map((p) => [p.name, Number(p.value.toPrecision(5))])],
    [0, [['speed', 1.2], ['stop', 0], ['wave', 0]]],
  );
  // The clips idle and wave and the state halt loop in place: no ground speed, and why.
  assert.deepEqual(f.metadata.no_ground_speed.map((n) => n.anim), [0, 3, 7]);
  const m = texelMatrix(f, 5, 2, 4).map((x) => Number(x.toPrecision(5)));
  assert.deepEqual(m, [0.97998, -0.11469, -0.1626, 0.15137, 0.10535, 0.99219, -0.065186, -0.087646, 0.16882, 0.046753, 0.98438, -0.071594]);
});
