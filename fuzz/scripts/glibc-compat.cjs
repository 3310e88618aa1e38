#!/usr/bin/env node
/*
 * Makes Jazzer.js 4.0.0's prebuilt Linux x64 addon load on glibc < 2.38 / libstdc++ < GCC 13 (Debian 12, our CI
 * machines). The prebuilt `fuzzer-linux-x64.node` was linked on a newer distribution and asks for:
 *   - __isoc23_strtol / __isoc23_strtoul @GLIBC_2.38 (the C23 variants GCC 13 headers pick; they differ from
 *     strtol/strtoul only by also accepting a "0b" prefix, which libFuzzer's flag parsing never needs);
 *   - version GLIBCXX_3.4.32 for _ZSt21ios_base_library_initv, a link-time marker with no relocation.
 * The package ships no sources (older versions build compiler-rt from GitHub, unreachable here), so we edit the
 * ELF's dynamic tables in place, without changing any size or offset:
 *   - the two symbols are renamed to their suffix "strtol"/"strtoul" (st_name += 9, the string is already there)
 *     and bound to libc's GLIBC_2.2.5 version entry;
 *   - the GLIBC_2.38 and GLIBCXX_3.4.32 requirements are marked VER_FLG_WEAK, so a missing version is not fatal.
 * Idempotent; does nothing when the addon already loads. Usage: node fuzz/scripts/glibc-compat.cjs [addon.node]
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

function addonPath() {
  if (process.argv[2]) return path.resolve(process.argv[2]);
  const pkg = require.resolve('@jazzer.js/fuzzer/package.json', { paths: [process.cwd(), __dirname] });
  return path.join(path.dirname(pkg), 'prebuilds', `fuzzer-${process.platform}-${process.arch}.node`);
}

function loads(file) {
  try {
    process.dlopen({ exports: {} }, file);
    return undefined;
  } catch (error) {
    return error;
  }
}

function elfHash(name) {
  let h = 0;
  for (const c of Buffer.from(name)) {
    h = ((h << 4) + c) >>> 0;
    const g = h & 0xf0000000;
    if (g !== 0) h ^= g >>> 24;
    h &= ~g >>> 0;
  }
  return h >>> 0;
}

function patch(file) {
  const b = fs.readFileSync(file);
  if (b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2 || b[5] !== 1) throw new Error('not an ELF64 little-endian file');
  const shoff = Number(b.readBigUInt64LE(0x28));
  const shentsize = b.readUInt16LE(0x3a);
  const shnum = b.readUInt16LE(0x3c);
  const sections = [];
  for (let i = 0; i < shnum; i++) {
    const o = shoff + i * shentsize;
    sections.push({
      type: b.readUInt32LE(o + 4),
      offset: Number(b.readBigUInt64LE(o + 0x18)),
      size: Number(b.readBigUInt64LE(o + 0x20)),
      link: b.readUInt32LE(o + 0x28),
      info: b.readUInt32LE(o + 0x2c),
      entsize: Number(b.readBigUInt64LE(o + 0x38)),
    });
  }
  const SHT_DYNSYM = 11,
    SHT_GNU_VERNEED = 0x6ffffffe,
    SHT_GNU_VERSYM = 0x6fffffff;
  const dynsym = sections.find((s) => s.type === SHT_DYNSYM);
  const versym = sections.find((s) => s.type === SHT_GNU_VERSYM);
  const verneed = sections.find((s) => s.type === SHT_GNU_VERNEED);
  if (!dynsym || !versym || !verneed) throw new Error('missing .dynsym/.gnu.version/.gnu.version_r');
  const dynstr = sections[dynsym.link];
  const str = (off) => {
    const start = dynstr.offset + off;
    return b.toString('latin1', start, b.indexOf(0, start));
  };

  // Version requirements: name -> { index, offset of the vernaux entry }
  const needs = new Map();
  let vn = verneed.offset;
  for (let i = 0; i < verneed.info; i++) {
    const file = str(b.readUInt32LE(vn + 4));
    let va = vn + b.readUInt32LE(vn + 8);
    for (let j = 0; j < b.readUInt16LE(vn + 2); j++) {
      needs.set(`${file}:${str(b.readUInt32LE(va + 8))}`, { index: b.readUInt16LE(va + 6), at: va });
      const next = b.readUInt32LE(va + 12);
      if (next === 0) break;
      va += next;
    }
    const nextVn = b.readUInt32LE(vn + 12);
    if (nextVn === 0) break;
    vn += nextVn;
  }
  const base = needs.get('libc.so.6:GLIBC_2.2.5');
  if (!base) throw new Error('no libc.so.6 GLIBC_2.2.5 requirement to bind to');

  let changed = 0;
  const count = dynsym.size / dynsym.entsize;
  for (let i = 0; i < count; i++) {
    const o = dynsym.offset + i * dynsym.entsize;
    const name = str(b.readUInt32LE(o));
    if (name === '__isoc23_strtol' || name === '__isoc23_strtoul') {
      b.writeUInt32LE(b.readUInt32LE(o) + '__isoc23_'.length, o);
      b.writeUInt16LE(base.index, versym.offset + i * 2);
      changed++;
    }
  }
  for (const key of ['libc.so.6:GLIBC_2.38', 'libstdc++.so.6:GLIBCXX_3.4.32']) {
    const need = needs.get(key);
    if (need) {
      b.writeUInt16LE(b.readUInt16LE(need.at + 4) | 0x2 /* VER_FLG_WEAK */, need.at + 4);
      changed++;
    }
  }
  if (elfHash('GLIBC_2.2.5') !== b.readUInt32LE(base.at)) throw new Error('unexpected version hash layout');
  fs.writeFileSync(file, b);
  return changed;
}

const file = addonPath();
const before = loads(file);
if (before === undefined) {
  console.log(`glibc-compat: ${path.relative(process.cwd(), file)} loads as is`);
  process.exit(0);
}
if (!/GLIBC(XX)?_[0-9.]+' not found/.test(before.message)) throw before;
if (!fs.existsSync(`${file}.orig`)) fs.copyFileSync(file, `${file}.orig`);
const changed = patch(file);
const after = loads(file);
if (after !== undefined) {
  console.error(`glibc-compat: patched ${changed} entries but the addon still fails to load`);
  throw after;
}
console.log(`glibc-compat: patched ${changed} ELF entries of ${path.relative(process.cwd(), file)}; it now loads`);
