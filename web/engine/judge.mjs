// The judge compiled to WebAssembly (crates/judge-web): its C ABI wrapped
// as `call(entry, request) -> answer`, JSON in and out (see the crate's
// abi.rs for the convention). No glue beyond this file.

import { readBytes } from "./platform.mjs";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Loads judge.wasm from `url` and returns { call(entry, request) }. */
export async function loadJudge(url) {
  const bytes = await readBytes(url);
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const wasm = instance.exports;
  function call(entry, request) {
    const input = encoder.encode(JSON.stringify(request ?? {}));
    const ptr = wasm.alloc(input.length);
    new Uint8Array(wasm.memory.buffer, ptr, input.length).set(input);
    const packed = wasm[entry](ptr, input.length);
    wasm.dealloc(ptr, input.length);
    const outPtr = Number(BigInt.asUintN(64, packed) >> 32n);
    const outLen = Number(BigInt.asUintN(64, packed) & 0xffffffffn);
    const text = decoder.decode(new Uint8Array(wasm.memory.buffer, outPtr, outLen));
    wasm.dealloc(outPtr, outLen);
    const answer = JSON.parse(text);
    if ("error" in answer) {
      throw new JudgeError(answer.error);
    }
    return answer.ok;
  }
  return { call };
}

/** What the judge refused: its message says what to do. */
export class JudgeError extends Error {
  constructor(message) {
    super(message);
    this.name = "JudgeError";
  }
}
