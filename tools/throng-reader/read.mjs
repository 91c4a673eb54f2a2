// An independent reader of `.throng` files, written from docs/FORMAT.md alone (not from
// throng's Rust sources), to show that the specification is enough to read a bake.
//
// - readThrong(buffer, name): applies every container rule (1-6) and every baked-layer rule
//   (1-34, 35-39 for format 1.1 and later, 40-41 for 1.2 and later, 42-43 for 1.3 and later,
//   and 44-47 for 1.4 and later) of docs/FORMAT.md, throwing a ThrongFormatError that names the
//   failed rule, and
//   returns a plain object with everything the file holds.
// - inspect(buffer, name): the JSON value that `throng inspect FILE.throng --json` prints.
// - texelMatrix(file, anim, frame, joint): the 12 stored values (rows 0..2) of one joint's
//   skinning matrix, decoded from f32 or f16.
//
// No dependencies: Node.js >= 18.

/** The error of a refused file. `rule` is e.g. "container 4" or "baked 12". */
export class ThrongFormatError extends Error {
  constructor(name, layer, rule, title, detail) {
    super(`${name}: ${layer} rule ${rule} (${title}): ${detail}`);
    this.name = 'ThrongFormatError';
    this.rule = `${layer} ${rule}`;
  }
}

const MAGIC = [0x54, 0x48, 0x52, 0x4f, 0x4e, 0x47, 0x00, 0x1a];
const HEADER_SIZE = 64;
const ENTRY_SIZE = 32;
const U64_MAX = (1n << 64n) - 1n;
const NONE = 0xffffffff;

// ---------------------------------------------------------------------------------------------
// CRC-32 (zlib / PNG / Ethernet): reflected polynomial 0xEDB88320, init and final XOR 0xFFFFFFFF.

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 of bytes[start, end). */
export function crc32(bytes, start = 0, end = bytes.length) {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// ---------------------------------------------------------------------------------------------
// Little-endian access.

function view(bytes) {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** IEEE-754 binary16 bits to a number. */
export function f16ToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

const hex = (n, w = 8) => `0x${n.toString(16).toUpperCase().padStart(w, '0')}`;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// ---------------------------------------------------------------------------------------------
// The baked layer's sections and record sizes.

const BAKED_SECTIONS = [
  'INFO', 'STRS', 'CHAR', 'JOIN', 'ANIM', 'EVNT', 'MOTN', 'BNDS',
  'MESH', 'IMAG', 'META', 'VERT', 'INDX', 'PIXL', 'TEXL',
];
const RECORD_SIZE = {
  CHAR: 48, JOIN: 80, ANIM: 96, EVNT: 16, MOTN: 12, BNDS: 24, MESH: 80, IMAG: 16,
};
// Format 1.1's sections (skipped in a 1.0 file) and their record sizes.
const SECTIONS_1_1 = ['JNOD', 'AEXT', 'AGLT', 'APRM'];
const RECORD_SIZE_1_1 = { JNOD: 4, AEXT: 32, AGLT: 4, APRM: 12 };
// Format 1.2: one CharExtRecord per character.
const CEXT_RECORD_SIZE = 16;
const EXT_GROUND_SPEED = 1;
const EXT_FOOT_SLIDE = 2;
const EXT_FEET_LOCKED = 4;
const TEXEL_FORMATS = { 1: { name: 'rgba32f', size: 16 }, 2: { name: 'rgba16f', size: 8 } };

const ANIM_LOOPING = 1;
const ANIM_ROOT_MOTION = 2;
const MESH_RIGID = 1;

// ---------------------------------------------------------------------------------------------
// Reading.

/**
 * Reads and validates a `.throng` file. `buffer`: a Buffer / Uint8Array with the whole file;
 * `name`: used in error messages. Throws ThrongFormatError naming the first rule that fails.
 */
export function readThrong(buffer, name = 'file') {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const container = readContainer(bytes, name);
  return readBaked(bytes, name, container);
}

function readContainer(bytes, name) {
  const fail = (rule, title, detail) => {
    throw new ThrongFormatError(name, 'container', rule, title, detail);
  };
  const len = bytes.length;
  const dv = view(bytes);

  // Rule 1: magic, then a whole header.
  if (len < 8) fail(1, 'magic', `the file is ${len} bytes, shorter than the 8-byte magic`);
  for (let i = 0; i < 8; i++) {
    if (bytes[i] !== MAGIC[i]) fail(1, 'magic', 'the file does not start with "THRONG\\0\\x1a"');
  }
  if (len < HEADER_SIZE) fail(1, 'magic', `the file is ${len} bytes, shorter than the 64-byte header`);

  // Rule 2: major version 1.
  const major = dv.getUint16(8, true);
  const minor = dv.getUint16(10, true);
  if (major !== 1) {
    const who = major > 1 ? 'a newer' : 'an older';
    fail(2, 'major version', `made by ${who} throng (format ${major}.${minor}); this build reads 1.x`);
  }

  // Rule 3: header CRC, then the file size.
  const headerCrc = dv.getUint32(60, true);
  const headerActual = crc32(bytes, 0, 60);
  if (headerCrc !== headerActual) {
    fail(3, 'header CRC', `header checksum is ${hex(headerActual)}, the header says ${hex(headerCrc)}`);
  }
  const fileSize = dv.getBigUint64(16, true);
  if (fileSize !== BigInt(len)) {
    fail(3, 'file size', `the header says the file is ${fileSize} bytes, but it is ${len}`);
  }

  // Rule 4: content CRC.
  const contentCrc = dv.getUint32(24, true);
  const contentActual = crc32(bytes, HEADER_SIZE, len);
  if (contentCrc !== contentActual) {
    fail(4, 'content CRC', `content checksum is ${hex(contentActual)}, the header says ${hex(contentCrc)}`);
  }

  // Rule 5: header size and the table's place.
  const headerSize = dv.getUint32(40, true);
  if (headerSize !== HEADER_SIZE) fail(5, 'header size', `header size is ${headerSize}, not 64`);
  const sectionCount = dv.getUint32(28, true);
  const tableOffset = dv.getBigUint64(32, true);
  const tableEnd = tableOffset + BigInt(ENTRY_SIZE) * BigInt(sectionCount);
  if (tableOffset < BigInt(HEADER_SIZE)) {
    fail(5, 'table place', `the section table starts at ${tableOffset}, inside the header`);
  }
  if (tableEnd > U64_MAX || tableEnd > fileSize) {
    fail(5, 'table place', `the section table (${sectionCount} entries at ${tableOffset}) ends past the end of the file (${fileSize} bytes)`);
  }

  // Rule 6: every entry, in table order.
  const sections = [];
  const byKind = new Map();
  let previousEnd = 0n;
  for (let i = 0; i < sectionCount; i++) {
    const at = Number(tableOffset) + i * ENTRY_SIZE;
    const kindBytes = bytes.subarray(at, at + 4);
    const kindHex = Array.from(kindBytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
    if (!kindBytes.every((b) => b >= 0x21 && b <= 0x7e)) {
      fail(6, 'section kind', `section ${i}: kind ${kindHex} is not 4 printable ASCII characters`);
    }
    const kind = String.fromCharCode(...kindBytes);
    const flags = dv.getUint32(at + 4, true);
    const offset = dv.getBigUint64(at + 8, true);
    const size = dv.getBigUint64(at + 16, true);
    const align = dv.getUint32(at + 24, true);
    const where = `section ${i} (${kind})`;
    if (align < 1 || align > 4096 || (align & (align - 1)) !== 0) {
      fail(6, 'section alignment', `${where}: alignment ${align} is not a power of two from 1 to 4096`);
    }
    const end = offset + size;
    if (end > U64_MAX || end > fileSize) {
      fail(6, 'section bounds', `${where}: ${size} bytes at ${offset} end past the end of the file (${fileSize} bytes)`);
    }
    if (offset < tableEnd) {
      fail(6, 'section bounds', `${where}: offset ${offset} is before the end of the section table (${tableEnd})`);
    }
    if (offset % BigInt(align) !== 0n) {
      fail(6, 'section alignment', `${where}: offset ${offset} is not a multiple of its alignment ${align}`);
    }
    if (offset < previousEnd) {
      fail(6, 'section order', `${where}: offset ${offset} is before the end of the previous section (${previousEnd})`);
    }
    if (byKind.has(kind)) fail(6, 'section kind', `${where}: a second section of kind ${kind}`);
    previousEnd = end;
    const section = { kind, flags, offset: Number(offset), size: Number(size), align };
    sections.push(section);
    byKind.set(kind, section);
  }

  return {
    version: { major, minor },
    flags: dv.getUint32(12, true),
    fileSize: len,
    tableOffset: Number(tableOffset),
    sections,
    byKind,
  };
}

function readBaked(bytes, name, container) {
  const fail = (rule, title, detail) => {
    throw new ThrongFormatError(name, 'baked', rule, title, detail);
  };
  const dv = view(bytes);
  const { byKind } = container;

  // Rule 1: all 15 sections.
  const missing = BAKED_SECTIONS.filter((k) => !byKind.has(k));
  if (missing.length) fail(1, 'sections', `missing section(s) ${missing.join(', ')}`);
  const sec = Object.fromEntries(BAKED_SECTIONS.map((k) => [k, byKind.get(k)]));

  // Rule 2: INFO.
  if (sec.INFO.size !== 32) fail(2, 'INFO', `INFO is ${sec.INFO.size} bytes, not 32`);
  const texelFormat = dv.getUint32(sec.INFO.offset, true);
  const maxJoints = dv.getUint32(sec.INFO.offset + 4, true);
  const texelCountBig = dv.getBigUint64(sec.INFO.offset + 8, true);
  if (!TEXEL_FORMATS[texelFormat]) fail(2, 'INFO', `texel_format is ${texelFormat}, not 1 (rgba32f) or 2 (rgba16f)`);
  const format = TEXEL_FORMATS[texelFormat];

  // Rule 3: record tables are whole numbers of records.
  const count = {};
  for (const [kind, size] of Object.entries(RECORD_SIZE)) {
    if (sec[kind].size % size !== 0) {
      fail(3, 'record sizes', `${kind} is ${sec[kind].size} bytes, not a multiple of its ${size}-byte records`);
    }
    count[kind] = sec[kind].size / size;
  }

  // Rule 4: VERT and INDX.
  if (sec.VERT.size % 56 !== 0) fail(4, 'VERT', `VERT is ${sec.VERT.size} bytes, not a multiple of 56`);
  if (sec.VERT.offset % 4 !== 0) fail(4, 'VERT', `VERT's offset ${sec.VERT.offset} is not a multiple of 4`);
  if (sec.INDX.size % 4 !== 0) fail(4, 'INDX', `INDX is ${sec.INDX.size} bytes, not a multiple of 4`);
  if (sec.INDX.offset % 4 !== 0) fail(4, 'INDX', `INDX's offset ${sec.INDX.offset} is not a multiple of 4`);
  count.VERT = sec.VERT.size / 56;
  count.INDX = sec.INDX.size / 4;

  // Rule 5: TEXL.
  if (texelCountBig * BigInt(format.size) !== BigInt(sec.TEXL.size)) {
    fail(5, 'TEXL', `TEXL is ${sec.TEXL.size} bytes, but texel_count ${texelCountBig} × ${format.size} = ${texelCountBig * BigInt(format.size)}`);
  }
  const texelAlign = format.size === 16 ? 4 : 2;
  if (sec.TEXL.offset % texelAlign !== 0) {
    fail(5, 'TEXL', `TEXL's offset ${sec.TEXL.offset} is not a multiple of ${texelAlign}`);
  }
  const texelCount = Number(texelCountBig);

  // Rule 6: every texel component finite.
  if (format.size === 16) {
    for (let i = 0; i < texelCount * 4; i++) {
      const bits = dv.getUint32(sec.TEXL.offset + i * 4, true);
      if ((bits & 0x7f800000) === 0x7f800000) {
        fail(6, 'texels', `texel ${Math.floor(i / 4)} component ${i % 4} is not finite`);
      }
    }
  } else {
    for (let i = 0; i < texelCount * 4; i++) {
      const bits = dv.getUint16(sec.TEXL.offset + i * 2, true);
      if ((bits & 0x7c00) === 0x7c00) {
        fail(6, 'texels', `texel ${Math.floor(i / 4)} component ${i % 4} is not finite (f16 ${hex(bits, 4)})`);
      }
    }
  }

  // Helpers on records.
  const u32 = (o) => dv.getUint32(o, true);
  const i32 = (o) => dv.getInt32(o, true);
  const f32 = (o) => dv.getFloat32(o, true);
  const u64 = (o) => dv.getBigUint64(o, true);
  const rec = (kind, i) => sec[kind].offset + i * RECORD_SIZE[kind];

  // Rule 7: strings.
  const str = (at, what) => {
    const offset = u32(at);
    const len = u32(at + 4);
    if (offset + len > sec.STRS.size) {
      fail(7, 'strings', `${what}: string of ${len} bytes at ${offset} ends past STRS (${sec.STRS.size} bytes)`);
    }
    try {
      return UTF8.decode(bytes.subarray(sec.STRS.offset + offset, sec.STRS.offset + offset + len));
    } catch {
      return fail(7, 'strings', `${what}: the string at ${offset} (${len} bytes) is not valid UTF-8`);
    }
  };

  const finite = Number.isFinite;
  const characters = [];
  const anims = [];
  const meshes = [];
  const events = [];
  let J = 0;
  let A = 0;
  let M = 0;
  let E = 0;
  const charCount = count.CHAR;

  for (let c = 0; c < charCount; c++) {
    const at = rec('CHAR', c);
    const where = `character ${c}`;
    const charName = str(at, `${where} name`);
    const firstJoint = u32(at + 8);
    const jointCount = u32(at + 12);
    const firstAnim = u32(at + 16);
    const animCount = u32(at + 20);
    const firstMesh = u32(at + 24);
    const partCount = u32(at + 28);
    const lodCount = u32(at + 32);
    const height = f32(at + 36);

    // Rule 8.
    if (jointCount < 1 || jointCount > 65536) fail(8, 'joint count', `${where}: joint_count ${jointCount} is not 1 to 65536`);
    // Rule 9.
    if (firstJoint !== J) fail(9, 'ranges', `${where}: first_joint is ${firstJoint}, expected ${J}`);
    if (firstAnim !== A) fail(9, 'ranges', `${where}: first_anim is ${firstAnim}, expected ${A}`);
    if (firstMesh !== M) fail(9, 'ranges', `${where}: first_mesh is ${firstMesh}, expected ${M}`);
    // Exact in 64 bits (BigInt); once within the MESH table, also exact as a number.
    const meshCountBig = BigInt(partCount) * BigInt(lodCount);
    const meshCount = Number(meshCountBig);
    if (BigInt(J) + BigInt(jointCount) > BigInt(count.JOIN)) fail(9, 'ranges', `${where}: joints ${J} + ${jointCount} exceed the ${count.JOIN} JOIN records`);
    if (BigInt(A) + BigInt(animCount) > BigInt(count.ANIM)) fail(9, 'ranges', `${where}: animations ${A} + ${animCount} exceed the ${count.ANIM} ANIM records`);
    if (BigInt(M) + meshCountBig > BigInt(count.MESH)) fail(9, 'ranges', `${where}: meshes ${M} + ${partCount} × ${lodCount} exceed the ${count.MESH} MESH records`);
    J += jointCount;
    A += animCount;
    M += meshCount;
    // Rule 10.
    if (partCount >= 1 && lodCount < 1) fail(10, 'LOD count', `${where}: ${partCount} parts but lod_count 0`);
    // Rule 11.
    if (!finite(height) || !(height > 0)) fail(11, 'height', `${where}: height ${height} is not finite and > 0`);

    const character = {
      index: c, name: charName, firstJoint, jointCount, firstAnim, animCount, firstMesh,
      partCount, lodCount, height, joints: [], anims: [], meshes: [],
    };

    // Joints: rules 7, 12, 13.
    for (let l = 0; l < jointCount; l++) {
      const ja = rec('JOIN', firstJoint + l);
      const jw = `${where} joint ${l} (JOIN record ${firstJoint + l})`;
      const jointName = str(ja, `${jw} name`);
      const parent = i32(ja + 8);
      if (!(parent === -1 || (parent >= 0 && parent < l))) {
        fail(12, 'parent', `${jw}: parent ${parent} is not -1 or a joint before it`);
      }
      const inverseBind = [];
      for (let k = 0; k < 16; k++) inverseBind.push(f32(ja + 16 + 4 * k));
      if (!inverseBind.every(finite)) fail(13, 'inverse bind', `${jw}: inverse_bind has a value that is not finite`);
      character.joints.push({ name: jointName, parent, inverseBind });
    }

    // Animations: rules 7, 14-21.
    for (let a = firstAnim; a < firstAnim + animCount; a++) {
      const aa = rec('ANIM', a);
      const aw = `${where} animation ${a}`;
      const animName = str(aa, `${aw} name`);
      const param = str(aa + 40, `${aw} param`);
      const anim = {
        index: a,
        name: animName,
        character: u32(aa + 8),
        kind: u32(aa + 12),
        flags: u32(aa + 16),
        frameCount: u32(aa + 20),
        firstTexelBig: u64(aa + 24),
        duration: f32(aa + 32),
        fps: f32(aa + 36),
        param,
        paramValue: f32(aa + 48),
        firstEvent: u32(aa + 52),
        eventCount: u32(aa + 56),
        firstMotion: u32(aa + 60),
        cycleMotion: [f32(aa + 64), f32(aa + 68), f32(aa + 72)],
        firstBounds: u32(aa + 76),
        interpolationError: f32(aa + 80),
        precisionError: f32(aa + 84),
      };
      if (anim.character !== c) fail(14, 'animation character', `${aw}: character is ${anim.character}, not ${c}`);
      if (anim.kind !== 0 && anim.kind !== 1) fail(15, 'animation kind and flags', `${aw}: kind ${anim.kind} is not 0 or 1`);
      if ((anim.flags & ~3) !== 0) fail(15, 'animation kind and flags', `${aw}: flags ${hex(anim.flags)} has bits other than 1 and 2`);
      if (anim.frameCount < 1) fail(16, 'frame count', `${aw}: frame_count is 0`);
      const fields = {
        duration: anim.duration, fps: anim.fps, param_value: anim.paramValue,
        interpolation_error: anim.interpolationError, precision_error: anim.precisionError,
        'cycle_motion.x': anim.cycleMotion[0], 'cycle_motion.z': anim.cycleMotion[1], 'cycle_motion.yaw': anim.cycleMotion[2],
      };
      for (const [field, v] of Object.entries(fields)) {
        if (!finite(v)) fail(17, 'finite values', `${aw}: ${field} is ${v}`);
      }
      for (const field of ['duration', 'fps', 'interpolation_error', 'precision_error']) {
        if (!(fields[field] >= 0)) fail(17, 'finite values', `${aw}: ${field} ${fields[field]} is negative`);
      }
      const texelEnd = anim.firstTexelBig + BigInt(anim.frameCount) * BigInt(jointCount) * 3n;
      if (texelEnd > U64_MAX || texelEnd > texelCountBig) {
        fail(18, 'texel range', `${aw}: texels ${anim.firstTexelBig} + ${anim.frameCount} × ${jointCount} × 3 exceed texel_count ${texelCountBig}`);
      }
      if (anim.firstTexelBig % 3n !== 0n) {
        fail(18, 'whole matrix', `${aw}: starts at texel ${anim.firstTexelBig}, not at a whole matrix (a multiple of 3)`);
      }
      if (anim.firstBounds + anim.frameCount > count.BNDS) {
        fail(19, 'bounds range', `${aw}: bounds ${anim.firstBounds} + ${anim.frameCount} exceed the ${count.BNDS} BNDS records`);
      }
      const rootMotion = (anim.flags & ANIM_ROOT_MOTION) !== 0;
      if (rootMotion && anim.firstMotion + anim.frameCount > count.MOTN) {
        fail(20, 'motion range', `${aw}: motion ${anim.firstMotion} + ${anim.frameCount} exceed the ${count.MOTN} MOTN records`);
      }
      if (anim.firstEvent + anim.eventCount > count.EVNT) {
        fail(21, 'events', `${aw}: events ${anim.firstEvent} + ${anim.eventCount} exceed the ${count.EVNT} EVNT records`);
      }
      if (anim.firstEvent !== E) fail(21, 'events', `${aw}: first_event is ${anim.firstEvent}, expected ${E}`);
      // Each event in turn: its name (rule 7), then its animation and time (rule 21).
      anim.events = [];
      for (let e = anim.firstEvent; e < anim.firstEvent + anim.eventCount; e++) {
        const ea = rec('EVNT', e);
        const eventName = str(ea + 4, `${aw} event ${e} name`);
        const owner = u32(ea);
        const time = f32(ea + 12);
        if (owner !== a) fail(21, 'events', `${aw} event ${e}: anim is ${owner}, not ${a}`);
        if (!(time >= 0 && time <= anim.duration)) fail(21, 'events', `${aw} event ${e}: time ${time} is not 0 to duration ${anim.duration}`);
        const event = { index: e, anim: a, name: eventName, time };
        anim.events.push(event);
        events.push(event);
      }
      E += anim.eventCount;
      anim.looping = (anim.flags & ANIM_LOOPING) !== 0;
      anim.rootMotion = rootMotion;
      anim.firstTexel = Number(anim.firstTexelBig);
      delete anim.firstTexelBig;
      anim.jointCount = jointCount;
      anim.bounds = [];
      for (let f = 0; f < anim.frameCount; f++) anim.bounds.push(readBounds(dv, rec('BNDS', anim.firstBounds + f)));
      anim.motion = [];
      if (rootMotion) {
        for (let f = 0; f < anim.frameCount; f++) {
          const ma = rec('MOTN', anim.firstMotion + f);
          anim.motion.push({ x: f32(ma), z: f32(ma + 4), yaw: f32(ma + 8) });
        }
      }
      character.anims.push(anim);
      anims.push(anim);
    }

    // Meshes: rules 7, 22-28.
    for (let k = 0; k < meshCount; k++) {
      const ma = rec('MESH', firstMesh + k);
      const mw = `${where} mesh ${k} (MESH record ${firstMesh + k})`;
      const meshName = str(ma, `${mw} name`);
      const mesh = {
        index: firstMesh + k,
        name: meshName,
        character: u32(ma + 8),
        part: u32(ma + 12),
        lod: u32(ma + 16),
        flags: u32(ma + 20),
        ratio: f32(ma + 24),
        error: f32(ma + 28),
        firstVertex: u32(ma + 32),
        vertexCount: u32(ma + 36),
        firstIndex: u32(ma + 40),
        indexCount: u32(ma + 44),
        baseColor: [f32(ma + 48), f32(ma + 52), f32(ma + 56), f32(ma + 60)],
        image: u32(ma + 64),
      };
      if (mesh.character !== c) fail(22, 'mesh order', `${mw}: character is ${mesh.character}, not ${c}`);
      const lod = Math.floor(k / partCount);
      const part = k % partCount;
      if (mesh.lod !== lod || mesh.part !== part) {
        fail(22, 'mesh order', `${mw}: part ${mesh.part} of LOD ${mesh.lod}, expected part ${part} of LOD ${lod}`);
      }
      if ((mesh.flags & ~MESH_RIGID) !== 0) fail(23, 'mesh flags', `${mw}: flags ${hex(mesh.flags)} has bits other than 1`);
      if (!(mesh.ratio > 0 && mesh.ratio <= 1)) fail(24, 'mesh values', `${mw}: ratio ${mesh.ratio} is not in (0, 1]`);
      if (!(finite(mesh.error) && mesh.error >= 0)) fail(24, 'mesh values', `${mw}: error ${mesh.error} is not finite and >= 0`);
      if (!mesh.baseColor.every(finite)) fail(24, 'mesh values', `${mw}: base_color has a value that is not finite`);
      if (mesh.image !== NONE && mesh.image >= count.IMAG) {
        fail(25, 'mesh image', `${mw}: image ${mesh.image} is not one of the ${count.IMAG} IMAG records`);
      }
      if (mesh.firstVertex + mesh.vertexCount > count.VERT) {
        fail(26, 'mesh ranges', `${mw}: vertices ${mesh.firstVertex} + ${mesh.vertexCount} exceed the ${count.VERT} VERT records`);
      }
      if (mesh.firstIndex + mesh.indexCount > count.INDX) {
        fail(26, 'mesh ranges', `${mw}: indices ${mesh.firstIndex} + ${mesh.indexCount} exceed the ${count.INDX} INDX indices`);
      }
      if (mesh.indexCount % 3 !== 0) fail(26, 'mesh ranges', `${mw}: index_count ${mesh.indexCount} is not a multiple of 3`);
      if (mesh.indexCount === 0) fail(26, 'mesh ranges', `${mw}: index_count is 0 (no triangles)`);
      for (let i = 0; i < mesh.indexCount; i++) {
        const index = u32(sec.INDX.offset + (mesh.firstIndex + i) * 4);
        if (index >= mesh.vertexCount) fail(27, 'indices', `${mw}: index ${i} is ${index}, not < vertex_count ${mesh.vertexCount}`);
      }
      for (let v = 0; v < mesh.vertexCount; v++) {
        const va = sec.VERT.offset + (mesh.firstVertex + v) * 56;
        for (let q = 0; q < 10; q++) {
          if (!finite(f32(va + 4 * q))) fail(28, 'vertices', `${mw}: vertex ${v} has a position, normal or uv value that is not finite`);
        }
        for (let q = 0; q < 4; q++) {
          if (!finite(f32(va + 40 + 4 * q))) fail(28, 'vertices', `${mw}: vertex ${v} has a weight that is not finite`);
          const joint = dv.getUint16(va + 32 + 2 * q, true);
          if (joint >= jointCount) fail(28, 'vertices', `${mw}: vertex ${v} joint ${q} is ${joint}, not < joint_count ${jointCount}`);
        }
      }
      mesh.rigid = (mesh.flags & MESH_RIGID) !== 0;
      character.meshes.push(mesh);
      meshes.push(mesh);
    }
    characters.push(character);
  }

  // Whole file: rules 29-34.
  if (J !== count.JOIN) fail(29, 'whole tables', `the characters have ${J} joints, JOIN has ${count.JOIN} records`);
  if (A !== count.ANIM) fail(29, 'whole tables', `the characters have ${A} animations, ANIM has ${count.ANIM} records`);
  if (M !== count.MESH) fail(29, 'whole tables', `the characters have ${M} meshes, MESH has ${count.MESH} records`);
  if (E !== count.EVNT) fail(29, 'whole tables', `the animations have ${E} events, EVNT has ${count.EVNT} records`);
  const largest = characters.reduce((m, ch) => Math.max(m, ch.jointCount), 0);
  if (maxJoints !== largest) fail(30, 'max joints', `INFO.max_joints is ${maxJoints}, the largest joint_count is ${largest}`);
  for (let b = 0; b < count.BNDS; b++) {
    const { min, max } = readBounds(dv, rec('BNDS', b));
    if (![...min, ...max].every(finite)) fail(31, 'bounds', `BNDS record ${b} has a value that is not finite`);
    for (let i = 0; i < 3; i++) {
      if (!(min[i] <= max[i])) fail(31, 'bounds', `BNDS record ${b}: min[${i}] ${min[i]} > max[${i}] ${max[i]}`);
    }
  }
  for (let m = 0; m < count.MOTN; m++) {
    const ma = rec('MOTN', m);
    if (![f32(ma), f32(ma + 4), f32(ma + 8)].every(finite)) fail(32, 'motion', `MOTN record ${m} has a value that is not finite`);
  }
  const images = [];
  for (let i = 0; i < count.IMAG; i++) {
    const ia = rec('IMAG', i);
    const width = u32(ia);
    const height = u32(ia + 4);
    const offset = u64(ia + 8);
    if (width < 1 || height < 1) fail(33, 'images', `IMAG record ${i}: ${width} × ${height} pixels`);
    const end = offset + BigInt(width) * BigInt(height) * 4n;
    if (end > U64_MAX || end > BigInt(sec.PIXL.size)) {
      fail(33, 'images', `IMAG record ${i}: ${width} × ${height} pixels at ${offset} end past PIXL (${sec.PIXL.size} bytes)`);
    }
    images.push({ width, height, offset: Number(offset) });
  }
  let metadata;
  try {
    metadata = parseMeta(bytes.subarray(sec.META.offset, sec.META.offset + sec.META.size));
  } catch (e) {
    if (!(e instanceof MetaError)) throw e;
    fail(34, 'META', e.message);
  }

  // Format 1.1: rules 35-39, only in a file of minor version 1 or later.
  const joints = characters.flatMap((ch) => ch.joints);
  for (const j of joints) j.node = null;
  for (const a of anims) Object.assign(a, { groundSpeed: null, footSlide: null, feetLocked: false, source: null });
  if (container.version.minor >= 1) {
    const missing11 = SECTIONS_1_1.filter((k) => !byKind.has(k));
    if (missing11.length) fail(35, '1.1 sections', `missing section(s) ${missing11.join(', ')}`);
    const x = Object.fromEntries(SECTIONS_1_1.map((k) => [k, byKind.get(k)]));
    const n = {};
    for (const [kind, size] of Object.entries(RECORD_SIZE_1_1)) {
      if (x[kind].size % size !== 0) fail(35, '1.1 sections', `${kind} is ${x[kind].size} bytes, not a multiple of its ${size}-byte records`);
      n[kind] = x[kind].size / size;
    }
    if (n.JNOD !== count.JOIN) fail(35, '1.1 sections', `JNOD has ${n.JNOD} records, JOIN ${count.JOIN}`);
    if (n.AEXT !== count.ANIM) fail(35, '1.1 sections', `AEXT has ${n.AEXT} records, ANIM ${count.ANIM}`);
    joints.forEach((j, i) => {
      const node = u32(x.JNOD.offset + 4 * i);
      j.node = node === NONE ? null : node;
    });
    let S = 0;
    let P = 0;
    for (const a of anims) {
      const at = x.AEXT.offset + 32 * a.index;
      const aw = `animation ${a.index} (AEXT record ${a.index})`;
      const e = {
        flags: u32(at),
        groundSpeed: f32(at + 4),
        footSlide: f32(at + 8),
        state: u32(at + 12),
        firstSource: u32(at + 16),
        sourceCount: u32(at + 20),
        firstParam: u32(at + 24),
        paramCount: u32(at + 28),
      };
      if ((e.flags & ~7) !== 0) fail(36, '1.1 speeds', `${aw}: flags ${hex(e.flags)} has bits other than 1, 2 and 4`);
      const has = (bit) => (e.flags & bit) !== 0;
      if (has(EXT_FEET_LOCKED) && !has(EXT_GROUND_SPEED)) fail(36, '1.1 speeds', `${aw}: feet locked without a ground speed`);
      if (has(EXT_GROUND_SPEED) && !(finite(e.groundSpeed) && e.groundSpeed >= 0)) fail(36, '1.1 speeds', `${aw}: ground_speed ${e.groundSpeed} is not finite and >= 0`);
      if (has(EXT_FOOT_SLIDE) && !(finite(e.footSlide) && e.footSlide >= 0)) fail(36, '1.1 speeds', `${aw}: foot_slide ${e.footSlide} is not finite and >= 0`);
      if (a.kind === 0 && (e.state !== NONE || e.paramCount !== 0)) fail(37, '1.1 source kind', `${aw}: a clip with state ${e.state} and ${e.paramCount} parameters`);
      if (a.kind === 1 && e.sourceCount !== 0) fail(37, '1.1 source kind', `${aw}: a state with ${e.sourceCount} glTF animations`);
      if (e.firstSource !== S) fail(38, '1.1 ranges', `${aw}: first_source is ${e.firstSource}, expected ${S}`);
      if (e.firstParam !== P) fail(38, '1.1 ranges', `${aw}: first_param is ${e.firstParam}, expected ${P}`);
      if (e.firstParam + e.paramCount > n.APRM) fail(38, '1.1 ranges', `${aw}: parameters ${e.firstParam} + ${e.paramCount} exceed the ${n.APRM} APRM records`);
      S += e.sourceCount;
      P += e.paramCount;
      const params = [];
      for (let k = e.firstParam; k < e.firstParam + e.paramCount; k++) {
        const pa = x.APRM.offset + 12 * k;
        const name = str(pa, `${aw} parameter ${k} name`);
        const value = f32(pa + 8);
        if (!finite(value)) fail(39, '1.1 parameters', `${aw} parameter ${k}: value ${value} is not finite`);
        params.push({ name, value });
      }
      a.groundSpeed = has(EXT_GROUND_SPEED) ? e.groundSpeed : null;
      a.footSlide = has(EXT_FOOT_SLIDE) ? e.footSlide : null;
      a.feetLocked = has(EXT_FEET_LOCKED);
      if (e.state !== NONE) {
        a.source = { state: e.state, params };
      } else if (e.sourceCount > 0 && S <= n.AGLT) {
        const gltf = [];
        for (let k = e.firstSource; k < e.firstSource + e.sourceCount; k++) gltf.push(u32(x.AGLT.offset + 4 * k));
        a.source = { gltfAnimations: gltf };
      }
    }
    if (S !== n.AGLT) fail(38, '1.1 ranges', `the animations have ${S} glTF animation indices, AGLT has ${n.AGLT} records`);
    if (P !== n.APRM) fail(38, '1.1 ranges', `the animations have ${P} parameters, APRM has ${n.APRM} records`);
  }

  // Format 1.2: rules 40-41, only in a file of minor version 2 or later.
  for (const ch of characters) ch.facingTurns = 0;
  if (container.version.minor >= 2) {
    const c = byKind.get('CEXT');
    if (c === undefined) fail(40, '1.2 sections', 'missing section CEXT');
    if (c.size % CEXT_RECORD_SIZE !== 0) fail(40, '1.2 sections', `CEXT is ${c.size} bytes, not a multiple of its ${CEXT_RECORD_SIZE}-byte records`);
    if (c.size / CEXT_RECORD_SIZE !== characters.length) fail(40, '1.2 sections', `CEXT has ${c.size / CEXT_RECORD_SIZE} records, CHAR ${characters.length}`);
    characters.forEach((ch, i) => {
      const turns = u32(c.offset + CEXT_RECORD_SIZE * i);
      if (turns > 3) fail(41, '1.2 facing', `character ${i} '${ch.name}': facing_turns ${turns} is not 0 to 3`);
      ch.facingTurns = turns;
    });
  }

  // Format 1.3: rules 42-43, only in a file of minor version 3 or later. Older files keep
  // every joint at every level of a character with meshes (rule 9 bounds those levels; a
  // character without parts may claim any lod_count, so it lists none).
  const identity = (ch) => Array.from({ length: ch.jointCount }, (_, j) => j);
  for (const ch of characters) {
    ch.lodJoints = ch.partCount > 0 ? Array.from({ length: ch.lodCount }, () => identity(ch)) : [];
  }
  if (container.version.minor >= 3) {
    const s = byKind.get('JLOD');
    if (s === undefined) fail(42, '1.3 sections', 'missing section JLOD');
    if (s.size % 4 !== 0) fail(42, '1.3 sections', `JLOD is ${s.size} bytes, not a multiple of 4`);
    const want = characters.reduce((n, ch) => n + ch.lodCount * ch.jointCount, 0);
    if (s.size / 4 !== want) fail(42, '1.3 sections', `JLOD has ${s.size / 4} entries, the characters' LOD levels times their joints are ${want}`);
    let at = s.offset;
    characters.forEach((ch, i) => {
      // Bounded now: the levels' entries are in the file.
      ch.lodJoints = Array.from({ length: ch.lodCount }, () => identity(ch));
      for (let lod = 0; lod < ch.lodCount; lod++) {
        const map = ch.lodJoints[lod];
        for (let j = 0; j < ch.jointCount; j++) {
          const m = u32(at);
          at += 4;
          const parent = ch.joints[j].parent;
          const parents = parent >= 0 && parent < j ? map[parent] : undefined;
          if (m !== j && m !== parents) {
            fail(43, '1.3 skeleton LOD', `character ${i} '${ch.name}': LOD ${lod} draws joint ${j} with joint ${m}, neither itself nor what its parent is drawn with`);
          }
          map[j] = m;
        }
      }
    });
  }

  readImpostors(container, characters, anims, fail, dv);

  return {
    name,
    version: container.version,
    flags: container.flags,
    fileSize: container.fileSize,
    tableOffset: container.tableOffset,
    sections: container.sections,
    texelFormat: format.name,
    texelSize: format.size,
    texelCount,
    maxJoints,
    characters,
    anims,
    meshes,
    events,
    images,
    metadata,
    // For texel, vertex, index and pixel access.
    bytes,
    offsets: Object.fromEntries(BAKED_SECTIONS.map((k) => [k, sec[k].offset])),
  };
}

/**
 * Format 1.4: rules 44-47, only in a file of minor version 4 or later. Sets each character's
 * `impostor` ({views, cell, frameCount, level, centre, radius, firstPixel}, or null without
 * impostors, as in every older file) and each animation's `impostor` ({firstFrame,
 * frameCount}; 0 frames without).
 */
function readImpostors(container, characters, anims, fail, dv) {
  for (const ch of characters) ch.impostor = null;
  for (const a of anims) a.impostor = { firstFrame: 0, frameCount: 0 };
  if (container.version.minor < 4) return;
  const { byKind } = container;
  const s = {};
  for (const [kind, size] of [['IMPO', 48], ['IMPA', 8], ['IMPX', 1]]) {
    s[kind] = byKind.get(kind);
    if (s[kind] === undefined) fail(44, '1.4 sections', `missing section ${kind}`);
    if (s[kind].size % size !== 0) fail(44, '1.4 sections', `${kind} is ${s[kind].size} bytes, not a multiple of its ${size}-byte records`);
  }
  if (s.IMPO.size / 48 !== characters.length) fail(44, '1.4 sections', `IMPO has ${s.IMPO.size / 48} records, CHAR ${characters.length}`);
  if (s.IMPA.size / 8 !== anims.length) fail(44, '1.4 sections', `IMPA has ${s.IMPA.size / 8} records, ANIM ${anims.length}`);
  const u32 = (o) => dv.getUint32(o, true);
  const f32 = (o) => dv.getFloat32(o, true);
  const pixels = BigInt(s.IMPX.size);
  characters.forEach((ch, i) => {
    const at = s.IMPO.offset + 48 * i;
    const r = {
      views: u32(at),
      cell: u32(at + 4),
      frameCount: u32(at + 8),
      level: u32(at + 12),
      centre: [f32(at + 16), f32(at + 20), f32(at + 24)],
      radius: f32(at + 28),
      firstPixel: dv.getBigUint64(at + 32, true),
    };
    const reserved = [u32(at + 40), u32(at + 44)];
    const where = `character ${i} '${ch.name}'`;
    // Rule 45.
    if (r.views === 0) {
      if (r.cell !== 0 || r.frameCount !== 0 || r.level !== 0 || r.firstPixel !== 0n) {
        fail(45, '1.4 impostors', `${where}: no impostors (views 0), but cell ${r.cell}, ${r.frameCount} frames, LOD ${r.level} and first pixel ${r.firstPixel}`);
      }
    } else {
      if (r.views % 2 === 0 || r.views < 3 || r.views > 33) fail(45, '1.4 impostors', `${where}: ${r.views} impostor views per side, expected an odd number from 3 to 33`);
      if (r.cell < 1 || r.cell > 256) fail(45, '1.4 impostors', `${where}: impostor cells of ${r.cell} pixels, expected 1 to 256`);
      if (r.views * r.cell > 16384) fail(45, '1.4 impostors', `${where}: impostor atlas of ${r.views} views × ${r.cell} pixels is ${r.views * r.cell} pixels wide, more than 16384`);
      if (!(r.centre.every(Number.isFinite) && Number.isFinite(r.radius) && r.radius > 0)) {
        fail(45, '1.4 impostors', `${where}: impostor centre [${r.centre.join(', ')}] and radius ${r.radius} must be finite, the radius > 0`);
      }
      if (r.frameCount === 0) fail(45, '1.4 impostors', `${where}: impostors with 0 frames`);
      if (r.level >= ch.lodCount) fail(45, '1.4 impostors', `${where}: impostors drawn from LOD ${r.level}, but it has ${ch.lodCount} LOD levels`);
    }
    if (reserved[0] !== 0 || reserved[1] !== 0) fail(45, '1.4 impostors', `${where}: impostor reserved fields [${reserved.join(', ')}] are not zero`);
    if (r.views !== 0) {
      // Rule 47, in exact integers.
      if (r.firstPixel % 4n !== 0n) fail(47, '1.4 impostor pixels', `${where}: impostor pixels start at byte ${r.firstPixel}, not a multiple of 4`);
      const side = BigInt(r.views * r.cell);
      const frameBytes = 2n * side * side * 4n;
      if (r.firstPixel + BigInt(r.frameCount) * frameBytes > pixels) {
        fail(47, '1.4 impostor pixels', `${where}: ${r.frameCount} impostor frames of ${frameBytes} bytes from byte ${r.firstPixel} run past the ${pixels} bytes of IMPX`);
      }
      ch.impostor = r;
    }
    for (const a of ch.anims) {
      const aa = s.IMPA.offset + 8 * a.index;
      const ia = { firstFrame: u32(aa), frameCount: u32(aa + 4) };
      const aw = `${where}, animation ${a.index} '${a.name}'`;
      if (r.views === 0) {
        if (ia.firstFrame !== 0 || ia.frameCount !== 0) {
          fail(45, '1.4 impostors', `${aw}: impostor frames ${ia.firstFrame}+${ia.frameCount}, but its character has no impostors (views 0)`);
        }
        continue;
      }
      // Rule 46.
      const least = a.looping ? 1 : 2;
      if (ia.frameCount < least) {
        fail(46, '1.4 impostor frames', `${aw}: ${ia.frameCount} impostor frames, a ${a.looping ? 'looping' : 'clamped'} animation needs at least ${least}`);
      }
      if (ia.firstFrame + ia.frameCount > r.frameCount) {
        fail(46, '1.4 impostor frames', `${aw}: impostor frames ${ia.firstFrame}+${ia.frameCount} run past its character's ${r.frameCount}`);
      }
      a.impostor = ia;
    }
  });
}

function readBounds(dv, at) {
  const f = (k) => dv.getFloat32(at + 4 * k, true);
  return { min: [f(0), f(1), f(2)], max: [f(3), f(4), f(5)] };
}

// ---------------------------------------------------------------------------------------------
// META: a strict JSON parser (RFC 8259) that refuses an object naming a key twice, at any depth,
// and keeps number tokens, so that "a non-negative integer up to 2^64 - 1" can be checked.

class MetaError extends Error {}

const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function parseMeta(raw) {
  let text;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw new MetaError('META is not valid UTF-8');
  }
  let i = 0;
  const err = (what) => {
    throw new MetaError(`META is not valid JSON: ${what} at character ${i}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const value = (depth) => {
    if (depth > 512) err('nesting too deep');
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      const entries = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { type: 'object', entries };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') err('expected a key');
        const key = string();
        // No object may name a key twice (docs/FORMAT.md, META): which value is meant?
        if (entries.some(([k]) => k === key)) throw new MetaError(`META names the key "${key}" twice in one object`);
        ws();
        if (text[i] !== ':') err("expected ':'");
        i++;
        entries.push([key, value(depth + 1)]);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return { type: 'object', entries };
        }
        err("expected ',' or '}'");
      }
    }
    if (ch === '[') {
      i++;
      const items = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { type: 'array', items };
      }
      for (;;) {
        items.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return { type: 'array', items };
        }
        err("expected ',' or ']'");
      }
    }
    if (ch === '"') return { type: 'string', value: string() };
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return { type: v === null ? 'null' : 'boolean', value: v };
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m) {
      i += m[0].length;
      return { type: 'number', raw: m[0], value: Number(m[0]) };
    }
    return err('unexpected character');
  };
  const string = () => {
    i++; // opening quote
    let out = '';
    for (;;) {
      if (i >= text.length) err('unterminated string');
      const ch = text[i];
      const code = ch.charCodeAt(0);
      if (ch === '"') {
        i++;
        break;
      }
      if (code < 0x20) err('control character in a string');
      if (ch === '\\') {
        const e = text[i + 1];
        const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e in simple) {
          out += simple[e];
          i += 2;
        } else if (e === 'u') {
          const h = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(h)) err('bad \\u escape');
          out += String.fromCharCode(parseInt(h, 16));
          i += 6;
        } else {
          err('bad escape');
        }
      } else {
        out += ch;
        i++;
      }
    }
    // Escaped lone surrogates (\uD800 alone) cannot be UTF-8 text.
    if (LONE_SURROGATE.test(out)) err('lone surrogate in a string');
    return out;
  };
  const root = value(0);
  ws();
  if (i !== text.length) err('trailing characters');

  const object = (node, what, keys) => {
    if (node.type !== 'object') throw new MetaError(`${what} is not a JSON object`);
    const out = {};
    for (const [key, type] of keys) {
      const found = node.entries.filter(([k]) => k === key);
      if (found.length === 0) throw new MetaError(`${what} has no key "${key}"`);
      if (found.length > 1) throw new MetaError(`${what} has the key "${key}" ${found.length} times`);
      out[key] = type(found[0][1], `${what}.${key}`);
    }
    return out;
  };
  const str = (node, what) => {
    if (node.type !== 'string') throw new MetaError(`${what} is not a string`);
    return node.value;
  };
  const num = (node, what) => {
    if (node.type !== 'number') throw new MetaError(`${what} is not a number`);
    if (!Number.isFinite(node.value)) throw new MetaError(`${what} (${node.raw}) is out of range`);
    return node.value;
  };
  const u64 = (node, what) => {
    if (node.type !== 'number' || !/^(0|[1-9][0-9]*)$/.test(node.raw) || BigInt(node.raw) > U64_MAX) {
      throw new MetaError(`${what} is not an integer from 0 to 2^64 - 1`);
    }
    return node.value;
  };
  const u32 = (node, what) => {
    if (node.type !== 'number' || !/^(0|[1-9][0-9]*)$/.test(node.raw) || BigInt(node.raw) > 0xffffffffn) {
      throw new MetaError(`${what} is not an integer from 0 to 2^32 - 1`);
    }
    return node.value;
  };
  const array = (item) => (node, what) => {
    if (node.type !== 'array') throw new MetaError(`${what} is not an array`);
    return node.items.map((x, k) => item(x, `${what}[${k}]`));
  };
  const input = (node, what) => object(node, what, [['path', str], ['sha256', str], ['bytes', u64]]);
  const meta = object(root, 'META', [
    ['tool', str],
    ['input_key', str],
    ['recipe_path', str],
    ['recipe', str],
    ['inputs', array(input)],
    ['precision', str],
    ['precision_budget', num],
    ['interpolation_budget', num],
  ]);
  // The one optional key: absent when every looping animation has a ground speed, and kept
  // only when it lists something (as throng prints it).
  const reasons = root.entries.find(([k]) => k === 'no_ground_speed');
  if (reasons) {
    const reason = (node, what) => object(node, what, [['anim', u32], ['why', str]]);
    const list = array(reason)(reasons[1], 'META.no_ground_speed');
    if (list.length) meta.no_ground_speed = list;
  }
  return meta;
}

// ---------------------------------------------------------------------------------------------
// Texels.

/**
 * The 12 stored values of animation `anim` (global ANIM index), frame `frame`, local joint
 * `joint`: rows 0, 1, 2 of the skinning matrix, each [M_r0, M_r1, M_r2, M_r3].
 * `file` is what readThrong returned (or the file's bytes, which are read first).
 */
export function texelMatrix(file, anim, frame, joint) {
  const f = file instanceof Uint8Array ? readThrong(file) : file;
  const a = f.anims[anim];
  if (!a) throw new RangeError(`no animation ${anim}`);
  if (!(frame >= 0 && frame < a.frameCount)) throw new RangeError(`frame ${frame} is not 0 to ${a.frameCount - 1}`);
  if (!(joint >= 0 && joint < a.jointCount)) throw new RangeError(`joint ${joint} is not 0 to ${a.jointCount - 1}`);
  const dv = view(f.bytes);
  const first = a.firstTexel + (frame * a.jointCount + joint) * 3;
  const out = [];
  for (let k = 0; k < 12; k++) {
    if (f.texelSize === 16) out.push(dv.getFloat32(f.offsets.TEXL + first * 16 + k * 4, true));
    else out.push(f16ToNumber(dv.getUint16(f.offsets.TEXL + first * 8 + k * 2, true)));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// `throng inspect FILE.throng --json`.

/** An f32 value as the shortest decimal that reads back as the same f32 (as Rust prints it). */
function f32Json(x) {
  if (!Number.isFinite(x)) return null;
  for (let p = 1; p <= 9; p++) {
    const s = Number(x.toPrecision(p));
    if (Math.fround(s) === x) return s;
  }
  return x;
}

/** The value `throng inspect FILE.throng --json` prints for this file. */
export function inspect(buffer, name = 'file') {
  const f = readThrong(buffer, name);
  return {
    file: name,
    version: `${f.version.major}.${f.version.minor}`,
    file_size: f.fileSize,
    sections: f.sections.map((s) => ({ kind: s.kind, offset: s.offset, size: s.size, align: s.align })),
    texel_format: f.texelFormat,
    texel_count: f.texelCount,
    max_joints: f.maxJoints,
    characters: f.characters.map((c) => ({
      name: c.name,
      height: f32Json(c.height),
      facing_turns: c.facingTurns,
      lod_joint_counts: (c.partCount > 0 ? c.lodJoints : []).map((m) => m.filter((k, j) => k === j).length),
      lod_joints: c.partCount > 0 ? c.lodJoints : [],
      impostor: c.impostor === null ? null : {
        views: c.impostor.views,
        cell: c.impostor.cell,
        frame_count: c.impostor.frameCount,
        level: c.impostor.level,
        centre: c.impostor.centre.map(f32Json),
        radius: f32Json(c.impostor.radius),
        first_pixel: Number(c.impostor.firstPixel),
      },
      joints: c.joints.map((j) => ({ name: j.name, parent: j.parent < 0 ? null : j.parent, node: j.node })),
      anims: c.anims.map((a) => {
        const out = { name: a.name, kind: a.kind === 0 ? 'clip' : 'state' };
        if (a.param !== '') {
          out.param = a.param;
          out.param_value = f32Json(a.paramValue);
        }
        Object.assign(out, {
          looping: a.looping,
          duration: f32Json(a.duration),
          fps: f32Json(a.fps),
          frames: a.frameCount,
          first_texel: a.firstTexel,
          interpolation_error: f32Json(a.interpolationError),
          precision_error: f32Json(a.precisionError),
        });
        if (a.rootMotion) out.cycle_motion = a.cycleMotion.map(f32Json);
        out.ground_speed = a.groundSpeed === null ? null : f32Json(a.groundSpeed);
        out.foot_slide = a.footSlide === null ? null : f32Json(a.footSlide);
        out.feet_locked = a.feetLocked;
        const reason = (f.metadata.no_ground_speed ?? []).find((n) => n.anim === f.anims.indexOf(a));
        out.no_ground_speed = reason === undefined ? null : reason.why;
        if (a.source === null) out.source = null;
        else if ('state' in a.source) {
          out.source = { state: a.source.state, params: a.source.params.map((p) => ({ name: p.name, value: f32Json(p.value) })) };
        } else out.source = { gltf_animations: a.source.gltfAnimations };
        out.impostor = { first_frame: a.impostor.firstFrame, frame_count: a.impostor.frameCount };
        out.events = a.events.map((e) => ({ name: e.name, time: f32Json(e.time) }));
        // The union of the per-frame boxes: the box that holds the animation at every frame.
        const min = [Infinity, Infinity, Infinity];
        const max = [-Infinity, -Infinity, -Infinity];
        for (const b of a.bounds) {
          for (let i = 0; i < 3; i++) {
            min[i] = Math.min(min[i], b.min[i]);
            max[i] = Math.max(max[i], b.max[i]);
          }
        }
        out.bounds = [min.map(f32Json), max.map(f32Json)];
        return out;
      }),
      meshes: c.meshes.map((m) => {
        const out = {
          name: m.name,
          part: m.part,
          lod: m.lod,
          ratio: f32Json(m.ratio),
          error: f32Json(m.error),
          vertices: m.vertexCount,
          triangles: m.indexCount / 3,
          rigid: m.rigid,
          base_color: m.baseColor.map(f32Json),
        };
        if (m.image !== NONE) out.image = m.image;
        return out;
      }),
    })),
    images: f.images.map((i) => ({ width: i.width, height: i.height })),
    metadata: f.metadata,
  };
}
