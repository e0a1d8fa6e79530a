/*
 * sonde: command line -> one run. The command line is parsed from its
 * table (driver/cli.c), then dispatched: --info, --object, --tools, -l,
 * --emit-elf, or the front end (driver/frontend.c) and the run
 * (runtime/run.c). Everything a run owns is released through one path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "driver/cli.h"
#include "driver/emitelf.h"
#include "driver/frontend.h"
#include "driver/objects.h"
#include "kernel/dwarf.h"
#include "lang/config.h"
#include "model/limits.h"
#include "model/settings.h"
#include "object/emitted.h"
#include "probes/provider.h"
#include "runtime/info.h"
#include "runtime/privilege.h"
#include "runtime/run.h"
#include "runtime/value_fmt.h"
#include "tools/toolfind.h"
#include "util/files.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Reads the script whole, NUL bytes included: a file, a FIFO (`sonde
 * <(...)`), or stdin ("-"), up to FILES_READ_MAX, so that /dev/zero is
 * refused, not read until memory runs out. */
static char *read_script(const char *path, uint32_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f)
		return NULL;
	struct stat st;
	if (f != stdin && !fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR; /* reading it would say EIO */
		return NULL;
	}
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	size_t n;
	int err = 0;
	while (!err && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (sb.len + n > FILES_READ_MAX)
			err = EFBIG;
		else
			sb_appendn(&sb, buf, n);
	}
	if (!err && ferror(f))
		err = EIO;
	if (f != stdin)
		fclose(f);
	if (err) {
		sb_free(&sb);
		errno = err;
		return NULL;
	}
	*len = (uint32_t)sb.len;
	return sb.buf ? sb.buf : xstrdup("");
}

/* -l: a search of the kernel's probes, or a program's probes. */
static int list_probes(const struct options *o, const struct src_file *f)
{
	probe_list_set_pid((int)o->pid);
	if (f)
		return frontend_list(o, f);
	struct diag ld;
	diag_init(&ld, stderr);
	if (o->list_search && probe_list_check(o->list_search, &ld) < 0)
		return 1;
	int err = probe_list_search(o->list_search, o->verbose, stdout);
	if (err < 0)
		fprintf(stderr, "sonde: cannot list probes: %s\n",
			strerror(-err));
	return err < 0;
}

/* What the command line asks before any script is read: 0 to go on, or
 * exit status + 1. */
static int checks_before_script(const struct options *o)
{
	if (o->debuginfo.len) {
		char *dirs = xstrdup(sb_str(&o->debuginfo));
		dirs[o->debuginfo.len - 1] = '\0'; /* the last ':' */
		dwarf_debuginfo_dirs(dirs);
		free(dirs);
	}
	/* as bpftrace, a -p process must exist now */
	if (o->pid_set) {
		int fd = (int)syscall(SYS_pidfd_open, (pid_t)o->pid, 0);
		if (fd < 0) {
			fputs("ERROR: Failed to attach to pid: Unable to open "
			      "pidfd\n", stderr);
			return 2;
		}
		close(fd);
	}
	const char *why;
	if ((o->object || (cli_will_run(o) && !o->list)) &&
	    !privilege_can_trace(&why)) {
		fprintf(stderr, "sonde: %s\n", why);
		return 2;
	}
	return 0;
}

/* The script's text: -e's, or the file's (owned by j). */
static int load_script(struct job *j, const struct options *o,
		       struct src_file *file)
{
	if (o->prog_text) {
		*file = (struct src_file){ "stdin", o->prog_text,
					   (uint32_t)strlen(o->prog_text) };
		return 0;
	}
	j->owned_text = read_script(o->prog_path, &file->len);
	if (!j->owned_text) {
		if (errno == EFBIG)
			fprintf(stderr, "ERROR: failed to open file '%s': "
				"larger than %u MiB\n", o->prog_path,
				FILES_READ_MAX >> 20);
		else
			fprintf(stderr, "ERROR: failed to open file '%s': "
				"%s\n", o->prog_path, strerror(errno));
		return -1;
	}
	file->name = o->prog_path;
	file->text = j->owned_text;
	return 0;
}

/* Compiles the script, then runs it (or only verifies, dry-runs, dumps). */
static int compile_and_run(struct job *j, const struct options *o,
			   const struct src_file *file)
{
	bool will_run = cli_will_run(o);
	/* The child exists (paused) before compiling: cpid is a constant
	 * in the generated code. */
	if (o->cmd && will_run) {
		int err = child_spawn_cmd(&j->child, o->cmd);
		if (err < 0) {
			fprintf(stderr, "sonde: cannot run '%s': %s\n", o->cmd,
				strerror(-err));
			return 1;
		}
		j->have_child = true;
	} else if (o->cmd) {
		j->child.pid = 1; /* a stand-in: nothing runs */
	}
	struct diag diag;
	diag_init(&diag, stderr);
	diag.no_warnings = o->no_warnings;
	if (o->emit_elf)
		return emitelf_write(o, file, &diag);
	int rc = frontend_run(j, o, file, &diag, FE_STOP_CODE);
	if (diag.nerrors - diag.nrepeats > diag.max_errors)
		fprintf(stderr, "sonde: %d errors in all, only the first %d "
				"shown\n", diag.nerrors - diag.nrepeats,
			diag.max_errors);
	if (rc || !will_run)
		return rc;
	if (!j->compiled.nprogs) {
		/* everything filtered out, or left out as missing */
		if (!o->quiet)
			puts("No probes to attach");
		return 1;
	}
	if (o->out_path && !(j->out = fopen(o->out_path, "w"))) {
		fprintf(stderr, "sonde: cannot write %s: %s\n", o->out_path,
			strerror(errno));
		return 1;
	}
	struct run_opts ropts = {
		.format = o->format, .out = j->out, .out_name = o->out_path,
		.err = stderr, .console = stdout,
		.verbose = o->verbose, .unsafe = o->unsafe, .quiet = o->quiet,
		.child = j->have_child ? &j->child : NULL,
		.pid = (pid_t)o->pid, .verify_only = o->verify,
		.buffering = o->buffering,
		.folded = o->folded, .flamegraph = o->flamegraph,
		.pprof = o->pprof,
		.heatmap = o->heatmap, .heatmap_svg = o->heatmap_svg,
		.metrics = o->metrics,
		.usdt_file_activation = o->usdt_file_activation,
		.bench = o->mode == MODE_BENCH, .test = o->mode == MODE_TEST,
		.no_warnings = o->no_warnings, .dry_run = o->dry_run,
	};
	int status = run_program(&j->compiled, &ropts);
	return status < 0 ? 1 : status;
}

/* The command line lives as long as the process; what parsing it
 * allocated is freed on the way out, whichever way that is. */
static struct options o;

static void free_options(void)
{
	cli_free(&o);
}

int main(int argc, char **argv)
{
	files_guard_stdio(); /* first: nothing opened may become stdout */
	atexit(free_options);
	enum cli_result cr = cli_parse(argc, argv, &o, stdout, stderr);
	if (cr != CLI_RUN)
		return cr == CLI_DONE ? 0 : 1;
	if (limits_from_env(stderr) < 0 || config_from_env(stderr) < 0)
		return 1;
	/* The printers' settings from the environment; a script's config
	 * block changes them again (frontend's pass_config). An --object
	 * run has no script, so these are its settings. */
	vfmt_set_str_trailer(limits.str_trunc_trailer);
	vfmt_set_debug_info(!limits.no_debug_info);
	if (o.info)
		return info_print(stdout, SONDE_VERSION) < 0;
	if (o.list_settings) {
		settings_print(stdout);
		return fflush(stdout) ? 1 : 0;
	}
	int early = checks_before_script(&o);
	if (early)
		return early - 1;
	if (o.object) /* an unreadable file goes to object mode, which says why */
		return emitted_detect(o.object) > 0 ? objects_run_emitted(&o) :
						      objects_run_clang(&o);
	if (o.list_tools)
		return toolfind_list(stdout) > 0 ? 0 : 1;
	if (o.list && !o.prog_text && !o.prog_path)
		return list_probes(&o, NULL);

	struct job j;
	memset(&j, 0, sizeof(j));
	arena_init(&j.arena);
	struct src_file file;
	int rc = 1;
	if (load_script(&j, &o, &file) == 0)
		rc = o.list ? list_probes(&o, &file) :
			      compile_and_run(&j, &o, &file);
	job_release(&j);
	return rc;
}
