/*
 * libFuzzer target (root): fuzz_compile's pipeline, then every program
 * codegen emits is loaded through the kernel's verifier; a rejection of a
 * type-checked program aborts. See fuzz_compile.c.
 */
#define FUZZ_VERIFY 1
#include "fuzz_compile.c"
