#include "value_fmt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "kernel/srcline.h"
#include "kernel/sysnr.h"
#include "model/unwind.h"
#include "runtime/fmt.h"
#include "model/types.h"
#include "runtime/output.h"
#include "util/strbuf.h"


uint64_t vfmt_load_int(const void *p, uint32_t size, bool is_signed)
{
	switch (size) {
	case 1: {
		uint8_t v;
		memcpy(&v, p, 1);
		return is_signed ? (uint64_t)(int64_t)(int8_t)v : v;
	}
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		return is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default: {
		uint64_t v;
		memcpy(&v, p, 8);
		return v;
	}
	}
}

static uint64_t u64_at(const void *data, size_t off)
{
	uint64_t v;
	memcpy(&v, (const uint8_t *)data + off, 8);
	return v;
}

static void put_int(struct strbuf *sb, uint64_t v, bool is_signed)
{
	if (is_signed)
		sb_printf(sb, "%" PRId64, (int64_t)v);
	else
		sb_printf(sb, "%" PRIu64, v);
}

/* Whether a double holds v exactly: its magnitude, less trailing zero
 * bits, fits in the 53 bits of a double's significand. */
static bool fits_double(uint64_t v, bool is_signed)
{
	uint64_t mag = is_signed && (int64_t)v < 0 ? -v : v;
	if (!mag)
		return true;
	return (mag >> __builtin_ctzll(mag)) < (1ull << 53);
}

void vfmt_json_int(struct strbuf *sb, uint64_t v, bool is_signed)
{
	bool quote = !fits_double(v, is_signed);
	if (quote)
		sb_putc(sb, '"');
	put_int(sb, v, is_signed);
	if (quote)
		sb_putc(sb, '"');
}

static void put_num(struct strbuf *sb, const struct vfmt *f, uint64_t v,
		    bool is_signed)
{
	if (f->json)
		vfmt_json_int(sb, v, is_signed);
	else
		put_int(sb, v, is_signed);
}

void vfmt_json_string(struct strbuf *sb, const char *s, size_t n)
{
	sb_putc(sb, '"');
	for (size_t i = 0; i < n; i++) {
		signed char c = (signed char)s[i];
		switch (c) {
		case '"': sb_append(sb, "\\\""); break;
		case '\\': sb_append(sb, "\\\\"); break;
		case '\n': sb_append(sb, "\\n"); break;
		case '\r': sb_append(sb, "\\r"); break;
		case '\t': sb_append(sb, "\\t"); break;
		default:
			if (c <= 0x1f)
				sb_printf(sb, "\\u%04x", (unsigned)(int)c);
			else
				sb_putc(sb, c);
		}
	}
	sb_putc(sb, '"');
}

/* An address as "func[+off]", or in hex when unknown ("0" for 0, as
 * bpftrace's ostream of a pointer). */
static void put_sym(struct strbuf *sb, const struct out_resolver *res,
		    uint64_t addr, int32_t pid, bool offset)
{
	struct strbuf name = STRBUF_INIT;
	if (res && res->sym && res->sym(res->ctx, addr, pid, offset, &name) == 0)
		sb_appendn(sb, sb_str(&name), name.len);
	else
		sb_printf(sb, "%#" PRIx64, addr);
	sb_free(&name);
}

/* " (/path/of/file)", as bpftrace's perf-mode user frames. */
static void put_module(struct strbuf *sb, const struct out_resolver *res,
		       uint64_t addr, int32_t pid)
{
	sb_append(sb, " (");
	size_t len = sb->len;
	if (!res || !res->module || res->module(res->ctx, addr, pid, sb) < 0) {
		sb->len = len;
		sb_append(sb, "[unknown]");
	}
	sb_putc(sb, ')');
}

/* "BUILDID 0xOFFSET" per frame, as bpftrace 0.26 prints build_id stacks
 * (unindented; the address in hex where the kernel read no build id). */
static void put_build_id_frame(struct strbuf *sb, struct stack_frame fr)
{
	if (!fr.build_id) {
		sb_printf(sb, "%" PRIx64, fr.ip);
		return;
	}
	sb_hex(sb, fr.build_id, 20);
	sb_printf(sb, " 0x%02" PRIx64, fr.ip);
}

static bool debug_info = true;

void vfmt_set_debug_info(bool on)
{
	debug_info = on;
}

#define MAX_INLINED 16

/* "@FILE:LINE" of a frame's source line (nothing when unknown). */
static void put_line(struct strbuf *sb, const struct srcline *l)
{
	if (l->file && l->line)
		sb_printf(sb, "@%s:%" PRId64, l->file, l->line);
}

/* A user frame with its debug info (show_debug_info), as bpftrace 0.26
 * prints it: each call inlined at ip on a line of its own, innermost
 * first ("[inlined] f@file:line"; perf mode: "ip f (inlined)"), then the
 * function ip is in, its source line after it in bpftrace mode. Returns
 * false when the file has none, for the plain frame. */
static bool put_frame_lines(struct strbuf *sb, const struct vfmt *f,
			    const struct type *t, uint64_t ip, int32_t pid,
			    bool leaf)
{
	const struct out_resolver *res = f->res;
	struct srcline l[MAX_INLINED];
	int n = debug_info && res && res->lines ?
		res->lines(res->ctx, ip, pid, leaf, l, MAX_INLINED) : 0;
	if (n <= 0)
		return false;
	bool perf = t->stack_mode == STACK_PERF;
	for (int i = 0; i < n - 1; i++) {
		if (!l[i].func)
			continue;
		if (perf) {
			sb_printf(sb, "\t%" PRIx64 " %s (inlined)\n", ip,
				  l[i].func);
			continue;
		}
		sb_printf(sb, "%*s[inlined] %s", f->stack_indent, "",
			  l[i].func);
		put_line(sb, &l[i]);
		sb_putc(sb, '\n');
	}
	if (perf) {
		sb_printf(sb, "\t%" PRIx64 " ", ip);
		put_sym(sb, res, ip, pid, true);
		put_module(sb, res, ip, pid);
	} else {
		sb_printf(sb, "%*s", f->stack_indent, "");
		put_sym(sb, res, ip, pid, true);
		put_line(sb, &l[n - 1]);
	}
	return true;
}

uint32_t vfmt_user_frames(const struct out_resolver *res, uint64_t pid_word,
			  const struct type *t, const uint8_t *ips, uint32_t n,
			  bool *truncated)
{
	int32_t pid = (int32_t)pid_word;
	/* the DWARF walk stopped where it could not go on */
	*truncated = (pid_word & UW_FLAG_TRUNCATED) != 0;
	if (!res || !res->mapped || t->kind != TY_USTACK ||
	    t->stack_mode == STACK_BUILD_ID || t->stack_mode == STACK_RAW)
		return n; /* what the kernel gave, as asked */
	for (uint32_t i = 0; i < n; i++)
		if (res->mapped(res->ctx, type_stack_frame(t, ips, i).ip,
				pid) == 0) {
			*truncated = true;
			return i;
		}
	return n;
}

static void put_stack(struct strbuf *sb, const struct vfmt *f,
		      const struct type *t, const uint8_t *data)
{
	const struct out_resolver *res = f->res;
	bool user = t->kind == TY_USTACK, truncated = false;
	const uint8_t *at;
	uint32_t n = type_stack_frames(t, data, &at);
	int32_t spid = user ? (int32_t)u64_at(data, 8) : -1;
	if (user)
		n = vfmt_user_frames(res, u64_at(data, 8), t, at, n,
				     &truncated);
	/* a newline first, also before no frames, as bpftrace 0.26 */
	sb_putc(sb, '\n');
	for (uint32_t i = 0; i < n; i++) {
		struct stack_frame fr = type_stack_frame(t, at, i);
		uint64_t ip = fr.ip;
		if (user && (t->stack_mode == STACK_BPFTRACE ||
			     t->stack_mode == STACK_PERF) &&
		    put_frame_lines(sb, f, t, ip, spid, i == 0)) {
			sb_putc(sb, '\n');
			continue;
		}
		switch (t->stack_mode) {
		case STACK_BPFTRACE:
			sb_printf(sb, "%*s", f->stack_indent, "");
			put_sym(sb, res, ip, spid, true);
			break;
		case STACK_PERF:
			sb_printf(sb, "\t%" PRIx64 " ", ip);
			put_sym(sb, res, ip, spid, true);
			if (user)
				put_module(sb, res, ip, spid);
			break;
		case STACK_RAW:
			sb_printf(sb, "%" PRIx64, ip);
			break;
		case STACK_BUILD_ID:
			put_build_id_frame(sb, fr);
			break;
		}
		sb_putc(sb, '\n');
	}
	if (!truncated)
		return;
	if (t->stack_mode == STACK_PERF)
		sb_append(sb, "\t" VFMT_TRUNCATED "\n");
	else if (t->stack_mode == STACK_RAW) /* as its frames: no indent */
		sb_append(sb, VFMT_TRUNCATED "\n");
	else
		sb_printf(sb, "%*s" VFMT_TRUNCATED "\n", f->stack_indent, "");
}

static void put_inet(struct strbuf *sb, const void *data)
{
	char buf[INET6_ADDRSTRLEN];
	uint64_t af = u64_at(data, 0);
	const uint8_t *addr = (const uint8_t *)data + 8;
	int family = af == AF_INET ? AF_INET : af == AF_INET6 ? AF_INET6 : -1;
	if (family > 0 && inet_ntop(family, addr, buf, sizeof(buf)))
		sb_append(sb, buf);
}

static void put_username(struct strbuf *sb, uint64_t uid)
{
	struct passwd pw, *found = NULL;
	char buf[4096];
	/* Unknown users print as "", as bpftrace 0.17 does. */
	if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &found) == 0 && found)
		sb_append(sb, found->pw_name);
}

/* strftime()'s value, in the one formatter printf's own strftime uses
 * (its %f extension: the microseconds). */
static void put_timestamp(struct strbuf *sb, const struct out_resolver *res,
			  const struct type *t, uint64_t ns)
{
	if (!t->name) {
		sb_printf(sb, "%" PRIu64, ns);
		return;
	}
	int64_t wall = (int64_t)ns + (res ? res->boot_wall_ns : 0);
	fmt_strftime(sb, t->name, (uint64_t)wall);
}

/* A buffer's bytes: text keeps printable ASCII and writes \xNN for the
 * rest; JSON writes each byte as a (signed) char's number, [104,105], as
 * bpftrace 0.26's JsonEmitter<std::vector<char>>. */
static void put_buf(struct strbuf *sb, const struct vfmt *f,
		    const struct type *t, const void *data)
{
	uint32_t len;
	memcpy(&len, data, 4);
	if (t->size < 4)
		len = 0;
	if (len > t->size - 4)
		len = t->size - 4;
	const uint8_t *p = (const uint8_t *)data + 4;
	if (f->json)
		sb_putc(sb, '[');
	for (uint32_t i = 0; i < len; i++) {
		if (f->json)
			sb_printf(sb, i ? ",%d" : "%d", (signed char)p[i]);
		else if (p[i] >= 0x20 && p[i] < 0x7f)
			sb_putc(sb, (char)p[i]);
		else
			sb_printf(sb, "\\x%02x", p[i]);
	}
	if (f->json)
		sb_putc(sb, ']');
}

/* A string: its bytes to the first NUL; one that fills its type without
 * a NUL (but a char array the script declared) was cut, and gets the trailer (bpftrace 0.26's str_trunc_trailer,
 * ".." by default). */
static const char *str_trailer = "..";

void vfmt_set_str_trailer(const char *trailer)
{
	str_trailer = trailer ? trailer : "";
}

static void put_string(struct strbuf *sb, const struct type *t,
		       const uint8_t *data)
{
	size_t n = strnlen((const char *)data, t->size);
	sb_appendn(sb, (const char *)data, n);
	if (n == t->size && t->size && !t->str_whole)
		sb_append(sb, str_trailer);
}

/* A bitfield's value, sign-extended when its type is signed. */
static uint64_t load_bitfield(const struct type_field *fl, const uint8_t *data)
{
	const struct type *ft = fl->type;
	uint64_t v = vfmt_load_int(data + fl->offset, ft->size, false);
	v >>= fl->bit_off;
	if (fl->bit_size < 64) {
		v &= (1ULL << fl->bit_size) - 1;
		if (ft->is_signed && (v >> (fl->bit_size - 1)) & 1)
			v |= ~0ULL << fl->bit_size;
	}
	return v;
}

/* Text: { .a = 1, .b = 2 } ({} when empty; compact: {.a=1,.b=2});
 * JSON: {"a": 1, "b": 2}, as bpftrace 0.26's emitters. */
static void put_record(struct strbuf *sb, const struct vfmt *f,
		       const struct type *t, const uint8_t *data)
{
	bool tight = f->compact || f->json || !t->nfields;
	sb_append(sb, tight ? "{" : "{ ");
	for (uint32_t i = 0; i < t->nfields; i++) {
		const struct type_field *fl = &t->fields[i];
		if (i)
			sb_append(sb, f->compact && !f->json ? "," : ", ");
		if (f->json) {
			vfmt_json_string(sb, fl->name, strlen(fl->name));
			sb_append(sb, ": ");
		} else {
			sb_printf(sb, f->compact ? ".%s=" : ".%s = ", fl->name);
		}
		if (fl->bit_size)
			put_num(sb, f, load_bitfield(fl, data),
				fl->type->is_signed);
		else
			vfmt_value(sb, f, fl->type, data + fl->offset);
	}
	sb_append(sb, tight ? "}" : " }");
}

/* Appends the text form of a value that JSON shows as a string. */
static bool put_stringish(struct strbuf *sb, const struct vfmt *f,
			  const struct type *t, const uint8_t *data)
{
	const struct out_resolver *res = f->res;
	switch (t->kind) {
	case TY_STRING:
		put_string(sb, t, data);
		return true;
	case TY_KSYM:
		put_sym(sb, res, u64_at(data, 0), -1, false);
		return true;
	case TY_STRERROR: {
		/* 0.26 has no number in its unknown error */
		const char *m = strerror((int)u64_at(data, 0));
		sb_append(sb, strncmp(m, "Unknown error", 13) ? m :
			  "Unknown error");
		return true;
	}
	case TY_SIGNAME: {
		/* strsignal()'s words for 0 to SIGRTMAX (64), as 0.26's
		 * table, and N/A past them */
		int64_t sig = (int32_t)u64_at(data, 0);
		sb_append(sb, sig >= 0 && sig <= 64 ? strsignal((int)sig) :
			  "N/A");
		return true;
	}
	case TY_SYSCALL_NAME: {
		const char *n = sysnr_name((int32_t)u64_at(data, 0));
		sb_append(sb, n ? n : "Unknown syscall");
		return true;
	}
	case TY_USYM:
		put_sym(sb, res, u64_at(data, 0), (int32_t)u64_at(data, 8),
			false);
		return true;
	case TY_KSTACK:
	case TY_USTACK:
		put_stack(sb, f, t, data);
		return true;
	case TY_INET:
		put_inet(sb, data);
		return true;
	case TY_USERNAME:
		put_username(sb, u64_at(data, 0));
		return true;
	case TY_PROBE: {
		uint64_t i = u64_at(data, 0);
		if (res && res->probe_names && i < res->nprobes)
			sb_append(sb, res->probe_names[i]);
		else
			sb_printf(sb, "%" PRIu64, i);
		return true;
	}
	case TY_MACADDR:
		sb_printf(sb, "%02X:%02X:%02X:%02X:%02X:%02X", data[0], data[1],
			  data[2], data[3], data[4], data[5]);
		return true;
	case TY_CGROUP_PATH: {
		uint64_t id = u64_at(data, 0);
		if (!res || !res->cgroup_path ||
		    res->cgroup_path(res->ctx, id, t->name, sb) < 0)
			sb_printf(sb, "%" PRIu64, id);
		return true;
	}
	case TY_TIMESTAMP:
		put_timestamp(sb, res, t, u64_at(data, 0));
		return true;
	default:
		return false;
	}
}

/* stats() as a record, { .count = 3, .average = 2, .total = 6 } (JSON
 * {"count": 3, ...}), its average divided by div, as bpftrace 0.26. */
static void put_stats(struct strbuf *sb, const struct vfmt *f,
		      const struct type *t, const uint8_t *data)
{
	uint64_t total = u64_at(data, 0), count = u64_at(data, 8);
	uint64_t avg = vfmt_average(t, data, f->div);
	sb_append(sb, f->json ? "{\"count\": " : "{ .count = ");
	put_num(sb, f, count, false);
	sb_append(sb, f->json ? ", \"average\": " : ", .average = ");
	put_num(sb, f, avg, t->is_signed);
	sb_append(sb, f->json ? ", \"total\": " : ", .total = ");
	put_num(sb, f, total, t->is_signed);
	sb_append(sb, f->json ? "}" : " }");
}

uint64_t vfmt_average(const struct type *t, const void *data, uint64_t div)
{
	uint64_t total = u64_at(data, 0), count = u64_at(data, 8);
	if (!div)
		div = 1;
	if (!count)
		return 0;
	if (t->is_signed)
		return (uint64_t)((int64_t)total / (int64_t)count /
				  (int64_t)div);
	return total / count / div;
}

void vfmt_value(struct strbuf *sb, const struct vfmt *f, const struct type *t,
		const void *data)
{
	const uint8_t *p = data;
	if (f->json) {
		struct strbuf tmp = STRBUF_INIT;
		struct vfmt text = *f;
		text.json = false;
		if (put_stringish(&tmp, &text, t, p)) {
			vfmt_json_string(sb, sb_str(&tmp), tmp.len);
			sb_free(&tmp);
			return;
		}
		sb_free(&tmp);
	} else if (put_stringish(sb, f, t, p)) {
		return;
	}
	uint64_t div = f->div ? f->div : 1;
	switch (t->kind) {
	case TY_INT: {
		if (t->enm) {
			/* the enumerator's name in text; JSON keeps the
			 * number, unsigned, as bpftrace 0.26's Symbolic */
			uint64_t v = vfmt_load_int(p, t->size, false);
			const char *name = f->json ? NULL :
				type_enum_name(t->enm, v);
			if (name)
				sb_append(sb, name);
			else
				put_num(sb, f, v, false);
			break;
		}
		/* print(@m, top, div) divides plain integers too */
		uint64_t v = vfmt_load_int(p, t->size, t->is_signed);
		put_num(sb, f, t->is_signed ? (uint64_t)((int64_t)v /
							 (int64_t)div) :
					      v / div,
			t->is_signed);
		break;
	}
	case TY_BOOL:
		/* the same words in text and JSON */
		sb_append(sb, *p ? "true" : "false");
		break;
	case TY_FLOAT: /* a value of no type 0.26 has: null, as it prints */
		sb_append(sb, "null");
		break;
	case TY_PTR:
		/* hex in text; JSON has the number (bpftrace's Symbolic) */
		if (f->json)
			vfmt_json_int(sb, u64_at(p, 0), false);
		else
			sb_printf(sb, "0x%" PRIx64, u64_at(p, 0));
		break;
	case TY_COUNT:
		put_num(sb, f, u64_at(p, 0) / div, false);
		break;
	case TY_SUM:
	case TY_MIN:
	case TY_MAX:
		if (t->is_signed)
			put_num(sb, f, (uint64_t)((int64_t)u64_at(p, 0) /
						  (int64_t)div), true);
		else
			put_num(sb, f, u64_at(p, 0) / div, false);
		break;
	case TY_AVG:
		put_num(sb, f, vfmt_average(t, p, f->div), t->is_signed);
		break;
	case TY_STATS:
		put_stats(sb, f, t, p);
		break;
	case TY_BUF:
		put_buf(sb, f, t, p);
		break;
	case TY_TUPLE:
		if (type_is_record(t)) {
			put_record(sb, f, t, p);
			break;
		}
		sb_putc(sb, f->json ? '[' : '(');
		for (uint32_t i = 0; i < t->nfields; i++) {
			if (i)
				sb_append(sb, f->json ? "," : ", ");
			vfmt_value(sb, f, t->fields[i].type,
				   p + t->fields[i].offset);
		}
		sb_putc(sb, f->json ? ']' : ')');
		break;
	case TY_RECORD:
		put_record(sb, f, t, p);
		break;
	case TY_ARRAY: {
		uint32_t esize = t->elem ? t->elem->size : 0;
		sb_putc(sb, '[');
		for (uint32_t i = 0; esize && i < t->count; i++) {
			if (i)
				sb_putc(sb, ',');
			vfmt_value(sb, f, t->elem, p + (size_t)i * esize);
		}
		sb_putc(sb, ']');
		break;
	}
	default:
		/* NONE, VOID: bpftrace 0.26 prints its monostate as null */
		sb_append(sb, "null");
		break;
	}
}

void vfmt_key(struct strbuf *sb, const struct vfmt *f, const struct type *key,
	      const void *data)
{
	if (!key)
		return;
	struct vfmt text = *f;
	text.json = false;
	text.div = 0;
	struct strbuf k = STRBUF_INIT;
	const uint8_t *p = data;
	if (key->kind == TY_TUPLE && !type_is_record(key)) {
		/* the tuple's text without its parentheses */
		for (uint32_t i = 0; i < key->nfields; i++) {
			if (i)
				sb_append(&k, ", ");
			vfmt_value(&k, &text, key->fields[i].type,
				   p + key->fields[i].offset);
		}
	} else {
		vfmt_value(&k, &text, key, p);
	}
	if (f->json) {
		/* bpftrace 0.26 takes every space out of a JSON key */
		size_t n = 0;
		for (size_t i = 0; i < k.len; i++)
			if (k.buf[i] != ' ')
				k.buf[n++] = k.buf[i];
		vfmt_json_string(sb, k.buf ? k.buf : "", n);
	} else {
		sb_putc(sb, '[');
		sb_appendn(sb, sb_str(&k), k.len);
		sb_putc(sb, ']');
	}
	sb_free(&k);
}
