#include "kernel/x86insn.h"

#include <stdbool.h>

/* Bytes of the ModRM byte at p, its SIB and displacement (32- and 64-bit
 * addressing alike), or 0 when cut off. */
static size_t modrm_len(const uint8_t *p, size_t n)
{
	if (n < 1)
		return 0;
	uint8_t m = p[0], mod = m >> 6, rm = m & 7;
	size_t len = 1;
	if (mod == 3)
		return len;
	if (rm == 4) {
		if (n < 2)
			return 0;
		len++;
		if (mod == 0 && (p[1] & 7) == 5)
			len += 4;
	} else if (mod == 0 && rm == 5) {
		len += 4; /* rip-relative */
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len <= n ? len : 0;
}

/* One-byte opcodes: what follows. */
enum { NONE, MODRM, BAD };
#define IMM_Z 0x10 /* imm32, imm16 with 0x66 */

static int one_byte(uint8_t op, int *imm, bool rex_w, bool opsz)
{
	int z = opsz ? 2 : 4;
	*imm = 0;
	if (op < 0x40) {
		switch (op & 7) {
		case 0: case 1: case 2: case 3:
			return MODRM;
		case 4:
			*imm = 1;
			return NONE;
		case 5:
			*imm = z;
			return NONE;
		default:
			return BAD; /* push/pop seg, daa...: not in 64-bit */
		}
	}
	if (op >= 0x50 && op <= 0x5f)
		return NONE;
	if (op >= 0x70 && op <= 0x7f) {
		*imm = 1;
		return NONE;
	}
	if (op >= 0x84 && op <= 0x8f)
		return MODRM;
	if (op >= 0x90 && op <= 0x99)
		return NONE;
	if (op >= 0xb0 && op <= 0xb7) {
		*imm = 1;
		return NONE;
	}
	if (op >= 0xb8 && op <= 0xbf) {
		*imm = rex_w ? 8 : z;
		return NONE;
	}
	if (op >= 0xd8 && op <= 0xdf)
		return MODRM; /* x87 */
	switch (op) {
	case 0x63: return MODRM;
	case 0x68: *imm = z; return NONE;
	case 0x69: *imm = z; return MODRM;
	case 0x6a: *imm = 1; return NONE;
	case 0x6b: *imm = 1; return MODRM;
	case 0x6c: case 0x6d: case 0x6e: case 0x6f: return NONE;
	case 0x80: case 0x83: *imm = 1; return MODRM;
	case 0x81: *imm = z; return MODRM;
	case 0x9b: case 0x9c: case 0x9d: case 0x9e: case 0x9f: return NONE;
	case 0xa0: case 0xa1: case 0xa2: case 0xa3: *imm = 8; return NONE;
	case 0xa4: case 0xa5: case 0xa6: case 0xa7: return NONE;
	case 0xa8: *imm = 1; return NONE;
	case 0xa9: *imm = z; return NONE;
	case 0xaa: case 0xab: case 0xac: case 0xad: case 0xae: case 0xaf:
		return NONE;
	case 0xc0: case 0xc1: *imm = 1; return MODRM;
	case 0xc2: *imm = 2; return NONE;
	case 0xc3: return NONE;
	case 0xc6: *imm = 1; return MODRM;
	case 0xc7: *imm = z; return MODRM;
	case 0xc8: *imm = 3; return NONE;
	case 0xc9: return NONE;
	case 0xca: *imm = 2; return NONE;
	case 0xcb: case 0xcc: return NONE;
	case 0xcd: *imm = 1; return NONE;
	case 0xcf: return NONE;
	case 0xd0: case 0xd1: case 0xd2: case 0xd3: return MODRM;
	case 0xd7: return NONE;
	case 0xe0: case 0xe1: case 0xe2: case 0xe3: case 0xe4: case 0xe5:
	case 0xe6: case 0xe7: case 0xeb:
		*imm = 1;
		return NONE;
	case 0xe8: case 0xe9: *imm = 4; return NONE;
	case 0xec: case 0xed: case 0xee: case 0xef: return NONE;
	case 0xf1: case 0xf4: case 0xf5: return NONE;
	case 0xf6: case 0xf7: return MODRM; /* imm by ModRM.reg */
	case 0xf8: case 0xf9: case 0xfa: case 0xfb: case 0xfc: case 0xfd:
		return NONE;
	case 0xfe: case 0xff: return MODRM;
	}
	return BAD;
}

/* Two-byte (0F xx) opcodes. */
static int two_byte(uint8_t op, int *imm)
{
	*imm = 0;
	if (op >= 0x80 && op <= 0x8f) {
		*imm = 4; /* jcc rel32 */
		return NONE;
	}
	if (op >= 0xc8 && op <= 0xcf)
		return NONE; /* bswap */
	switch (op) {
	case 0x04: case 0x0a: case 0x0c: case 0x24: case 0x25: case 0x26:
	case 0x27: case 0x36: case 0x39: case 0x3b: case 0x3c: case 0x3d:
	case 0x3e: case 0x3f: case 0x7a: case 0x7b: case 0xff:
		return BAD;
	case 0x05: case 0x06: case 0x07: case 0x08: case 0x09: case 0x0b:
	case 0x0e: case 0x30: case 0x31: case 0x32: case 0x33: case 0x34:
	case 0x35: case 0x37: case 0x77: case 0xa0: case 0xa1: case 0xa2:
	case 0xa8: case 0xa9: case 0xaa:
		return NONE;
	case 0x0f: case 0x70: case 0x71: case 0x72: case 0x73: case 0xa4:
	case 0xac: case 0xba: case 0xc2: case 0xc4: case 0xc5: case 0xc6:
		*imm = 1;
		return MODRM;
	}
	return MODRM;
}

/* VEX/EVEX map 1 opcodes that take an imm8. */
static bool vex_map1_imm8(uint8_t op)
{
	return (op >= 0x70 && op <= 0x73) || op == 0xc2 || op == 0xc4 ||
	       op == 0xc5 || op == 0xc6;
}

size_t x86insn_len(const uint8_t *p, size_t n)
{
	size_t i = 0;
	bool opsz = false, rex_w = false;
	/* legacy prefixes, at most 14 */
	for (; i < n && i < 14; i++) {
		uint8_t b = p[i];
		if (b == 0x66)
			opsz = true;
		else if (!(b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e ||
			   b == 0x36 || b == 0x3e || b == 0x26 || b == 0x64 ||
			   b == 0x65 || b == 0x67))
			break;
	}
	if (i >= n)
		return 0;
	if ((p[i] & 0xf0) == 0x40) {
		rex_w = p[i] & 8;
		if (++i >= n)
			return 0;
	}
	uint8_t op = p[i];
	int imm = 0, kind;
	size_t len;
	if (op == 0xc4 || op == 0xc5 || op == 0x62) {
		/* VEX (3 or 2 bytes) or EVEX (4): then opcode, ModRM */
		size_t plen = op == 0xc4 ? 3 : op == 0xc5 ? 2 : 4;
		if (i + plen >= n)
			return 0;
		unsigned map = op == 0xc5 ? 1 : (p[i + 1] & (op == 0x62 ? 3 : 0x1f));
		if (map < 1 || map > 3)
			return 0;
		i += plen;
		uint8_t vop = p[i++];
		if (map == 1 && vop == 0x77 && op != 0x62)
			return i; /* vzeroupper, vzeroall: no ModRM */
		imm = map == 3 || (map == 1 && vex_map1_imm8(vop)) ? 1 : 0;
		len = modrm_len(p + i, n - i);
		if (!len)
			return 0;
		i += len + (size_t)imm;
		return i <= n ? i : 0;
	}
	i++;
	if (op == 0x0f) {
		if (i >= n)
			return 0;
		uint8_t op2 = p[i++];
		if (op2 == 0x38 || op2 == 0x3a) {
			if (i >= n)
				return 0;
			i++; /* the opcode */
			kind = MODRM;
			imm = op2 == 0x3a ? 1 : 0;
		} else {
			kind = two_byte(op2, &imm);
		}
	} else {
		kind = one_byte(op, &imm, rex_w, opsz);
	}
	if (kind == BAD)
		return 0;
	if (kind == MODRM) {
		len = modrm_len(p + i, n - i);
		if (!len)
			return 0;
		/* test r/m, imm: F6 /0 /1 and F7 /0 /1 */
		if ((op == 0xf6 || op == 0xf7) && ((p[i] >> 3) & 7) < 2)
			imm = op == 0xf6 ? 1 : (opsz ? 2 : 4);
		i += len;
	}
	i += (size_t)imm;
	return i <= n ? i : 0;
}

enum x86insn_at x86insn_boundary(const uint8_t *code, size_t n, size_t off)
{
	size_t at = 0;
	while (at < off) {
		size_t len = x86insn_len(code + at, n - at);
		if (!len)
			return X86INSN_UNKNOWN;
		at += len;
	}
	return at == off ? X86INSN_START : X86INSN_MIDDLE;
}

bool x86insn_uprobe_bad_prefix(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n && i < 14; i++) {
		switch (p[i]) {
		case 0xf0: case 0x26: case 0x2e: case 0x36: case 0x3e:
			return true;
		case 0x66: case 0x67: case 0xf2: case 0xf3: case 0x64:
		case 0x65:
			continue;
		}
		return false;
	}
	return false;
}
