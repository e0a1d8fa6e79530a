#include "runtime/refusal.h"

#include <errno.h>
#include <linux/bpf.h>
#include <string.h>

#include "model/compiled.h"
#include "util/errstr.h"
#include "util/strbuf.h"

/* The verifier's limits (include/linux/bpf.h), as of every kernel sonde
 * runs on (5.8 and later). */
#define VERIFIER_MAX_PROCESSED 1000000 /* BPF_COMPLEXITY_LIMIT_INSNS */
#define VERIFIER_MAX_PENDING 8192      /* BPF_COMPLEXITY_LIMIT_JMP_SEQ */

/* Conditional jumps in p: each may leave the verifier a branch to come
 * back to. */
static unsigned cond_jumps(const struct cprog *p)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < p->code.ninsns; i++) {
		uint8_t c = p->code.insns[i].code;
		uint8_t cls = BPF_CLASS(c), op = BPF_OP(c);
		if ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_JA &&
		    op != BPF_CALL && op != BPF_EXIT)
			n++;
	}
	return n;
}

/* The verifier's last words: the line before its statistics
 * ("verification time ...", "stack depth ...", "processed N insns ..."),
 * or its last line. */
static void last_words(const char *log, struct strbuf *sb)
{
	const char *end = log + strlen(log);
	static const char *const stats[] = { "\nverification time ",
					     "\nstack depth ", "\nprocessed " };
	for (size_t k = 0; k < sizeof(stats) / sizeof(stats[0]); k++) {
		const char *at = strstr(log, stats[k]);
		if (at && at < end)
			end = at;
	}
	while (end > log && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	const char *start = end;
	while (start > log && start[-1] != '\n')
		start--;
	sb_printf(sb, "%.*s", (int)(end - start), start);
}

/* The line of log holding needle, without its newline and final dot:
 * the kernel's own words, quoted. */
static void quote(const char *log, const char *needle, struct strbuf *sb)
{
	const char *at = strstr(log, needle);
	const char *start = at, *end = at;
	while (start > log && start[-1] != '\n')
		start--;
	while (*end && *end != '\n')
		end++;
	if (end > start && end[-1] == '.')
		end--;
	sb_printf(sb, "\"%.*s\"", (int)(end - start), start);
}

/* A limit the verifier names, said in words into sb; false when the log
 * names none. */
static bool named_limit(const struct cprog *p, const char *log,
			struct strbuf *sb)
{
	const char *loop = p->loop_at;
	if (strstr(log, "infinite loop detected")) {
		if (loop)
			sb_printf(sb, "the while loop at %s: ", loop);
		sb_printf(sb, "it never ends: the verifier found an iteration "
			  "that changes nothing (an endless loop)");
		return true;
	}
	if (strstr(log, "back-edge from insn")) {
		if (loop)
			sb_printf(sb, "the while loop at %s: ", loop);
		sb_printf(sb, "this kernel's verifier takes no loops (5.3 and "
			  "later do): use unroll()");
		return true;
	}
	if (strstr(log, "jumps is too complex")) {
		if (loop) {
			sb_printf(sb, "the while loop at %s: the verifier "
				  "follows every iteration and stopped at its "
				  "limit of %d pending branches: make the loop "
				  "shorter (fewer iterations, or fewer "
				  "conditions in each)", loop,
				  VERIFIER_MAX_PENDING);
			return true;
		}
		sb_printf(sb, "the kernel's verifier gave up (");
		quote(log, "jumps is too complex", sb);
		sb_printf(sb, "): it keeps a branch to come back to at each "
			  "condition, and this program has %u conditions, "
			  "past its limit of %d pending at once: split the work "
			  "across probes, or use fewer conditions (an if, a "
			  "map read, a ternary) in one", cond_jumps(p),
			  VERIFIER_MAX_PENDING);
		return true;
	}
	if (strstr(log, "BPF program is too large")) {
		if (loop) {
			sb_printf(sb, "the while loop at %s: the verifier "
				  "follows every iteration and stopped at its "
				  "limit of %d instructions: make the loop "
				  "shorter (fewer iterations, or less work in "
				  "each)", loop, VERIFIER_MAX_PROCESSED);
			return true;
		}
		sb_printf(sb, "the kernel's verifier gave up (");
		quote(log, "BPF program is too large", sb);
		sb_printf(sb, "): it follows every path through the "
			  "program's %u instructions and %u conditions, and "
			  "stopped at its limit of %d instructions followed: "
			  "split the work across probes, or use fewer "
			  "conditions in one", p->code.ninsns, cond_jumps(p),
			  VERIFIER_MAX_PROCESSED);
		return true;
	}
	if (strstr(log, "due to 16-bit range")) {
		/* the kernel rewrites some instructions into several (helper
		 * calls it inlines, map accesses) after sonde placed the
		 * jumps; a jump across most of a big program then no longer
		 * fits its 16-bit offset */
		sb_printf(sb, "the kernel's verifier gave up (");
		quote(log, "due to 16-bit range", sb);
		sb_printf(sb, "): it rewrites some of the program's %u "
			  "instructions into several, and a jump across them "
			  "then passes 32,767 instructions: split the work "
			  "across probes, or unroll fewer times",
			  p->code.ninsns);
		return true;
	}
	if (strstr(log, "too complex")) {
		if (loop)
			sb_printf(sb, "the while loop at %s: ", loop);
		sb_printf(sb, "the kernel's verifier found it too complex to "
			  "follow (");
		quote(log, "too complex", sb);
		sb_printf(sb, "): make it shorter");
		return true;
	}
	if (strstr(log, "combined stack size")) {
		sb_printf(sb, "its stack is too deep for the kernel (");
		quote(log, "combined stack size", sb);
		sb_printf(sb, "): use smaller values");
		return true;
	}
	return false;
}

void refusal_report(FILE *out, const struct cprog *p, int err,
		    const char *log)
{
	struct strbuf sb = STRBUF_INIT;
	if (!log)
		log = "";
	if (named_limit(p, log, &sb)) {
		fprintf(out, "sonde: cannot load the program for %s: %s\n",
			p->name, sb_str(&sb));
	} else if (err == -EINVAL || err == -EACCES) {
		/* the verifier's refusals of what it checks: our bug */
		last_words(log, &sb);
		fprintf(out, "sonde: internal error: the kernel verifier "
			"rejected the program for %s%s%s\n", p->name,
			sb.len ? ": " : "", sb_str(&sb));
	} else {
		last_words(log, &sb);
		fprintf(out, "sonde: cannot load the program for %s: %s%s%s%s\n",
			p->name, err_str(-err), sb.len ? " (the verifier: \"" : "",
			sb_str(&sb), sb.len ? "\")" : "");
	}
	sb_free(&sb);
}
