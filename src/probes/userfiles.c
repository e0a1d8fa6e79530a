/* Which files a uprobe or USDT attach point (or -l pattern) names: a path,
 * a library or program by name, a wildcard over paths, and with -p PID the
 * files that process has mapped (its binary and every library), reached
 * through /proc/PID/root so that a process in another mount namespace is
 * traced in its own files. Shared by uprobe.c and usdt.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/glob.h"
#include "kernel/usrpath.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

static int list_pid;

void probe_list_set_pid(int pid)
{
	list_pid = pid;
}

int probe_list_get_pid(void)
{
	return list_pid;
}

static bool is_regular(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, R_OK);
}

/* The path of file as process pid sees it: "/proc/PID/root/abs/path" for
 * an absolute path that exists there, else file itself. */
static void in_pid_root(int pid, const char *file, char *out, size_t len)
{
	if (pid > 0 && file[0] == '/' && strncmp(file, "/proc/", 6)) {
		snprintf(out, len, "/proc/%d/root%s", pid, file);
		if (is_regular(out))
			return;
	}
	snprintf(out, len, "%s", file);
}

/* A relative pattern made absolute, to compare with the absolute paths
 * of a process's mappings ("./bin/x*" -> "/cwd/bin/x*"). */
static void absolute(const char *pat, char *out, size_t len)
{
	char cwd[PATH_MAX];
	if (pat[0] == '/' || pat[0] == '*' || !getcwd(cwd, sizeof(cwd))) {
		snprintf(out, len, "%s", pat);
		return;
	}
	while (pat[0] == '.' && pat[1] == '/')
		pat += 2;
	if (snprintf(out, len, "%s/%s", cwd, pat) >= (int)len)
		snprintf(out, len, "%s", pat); /* too long: as written */
}

struct mapped {
	char **paths;
	size_t n;
};

/* The distinct files pid has mapped executable (its binary and its
 * libraries), as absolute paths in pid's mount namespace. */
static int read_mapped(int pid, struct mapped *m)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	char line[PATH_MAX + 128], perms[8];
	while (fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/');
		if (!file || sscanf(line, "%*s %7s", perms) != 1 ||
		    perms[2] != 'x')
			continue;
		file[strcspn(file, "\n")] = 0;
		if (strstr(file, " (deleted)"))
			continue;
		bool seen = false;
		for (size_t i = 0; i < m->n && !seen; i++)
			seen = !strcmp(m->paths[i], file);
		if (seen)
			continue;
		char **np = realloc(m->paths, (m->n + 1) * sizeof(*np));
		char *dup = strdup(file);
		if (!np || !dup) {
			free(dup);
			if (np)
				m->paths = np;
			fclose(f);
			return -ENOMEM;
		}
		m->paths = np;
		m->paths[m->n++] = dup;
	}
	fclose(f);
	return 0;
}

static void free_mapped(struct mapped *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->paths[i]);
	free(m->paths);
}

int probe_user_files(int pid, const char *file, probe_user_file_fn fn,
		     void *ctx)
{
	char path[PATH_MAX];
	int rc = 0;
	if (pid > 0 && (!file[0] || glob_has_wildcard(file))) {
		struct mapped m = { 0 };
		int err = read_mapped(pid, &m);
		char pat[PATH_MAX];
		absolute(file[0] ? file : "*", pat, sizeof(pat));
		for (size_t i = 0; !err && rc >= 0 && i < m.n; i++) {
			if (!glob_match(pat, m.paths[i]))
				continue;
			snprintf(path, sizeof(path), "/proc/%d/root%s", pid,
				 m.paths[i]);
			rc = fn(path, ctx);
		}
		free_mapped(&m);
		return err ? err : rc;
	}
	if (glob_has_wildcard(file)) {
		glob_t g;
		if (glob(file, 0, NULL, &g))
			return 0;
		for (size_t i = 0; rc >= 0 && i < g.gl_pathc; i++)
			if (is_regular(g.gl_pathv[i]))
				rc = fn(g.gl_pathv[i], ctx);
		globfree(&g);
		return rc;
	}
	int err = usrpath_resolve(file, pid, path, sizeof(path));
	return err ? err : fn(path, ctx);
}

const char *probe_user_binary(struct probe_env *env, const char *path)
{
	char rooted[PATH_MAX];
	in_pid_root(env->pid, path, rooted, sizeof(rooted));
	return strcmp(rooted, path) ? arena_strdup(env->arena, rooted) : path;
}

bool probe_user_list_split(const char *pattern, const char *kind,
			   char *file, size_t len, const char **rest)
{
	const char *colon = strchr(pattern, ':');
	if (!colon && list_pid > 0 && !strcmp(pattern, "*")) {
		/* -l -p PID: everything the process has mapped */
		file[0] = 0;
		*rest = "*";
		return len > 0;
	}
	if (!colon)
		return false;
	char type[32];
	size_t tn = (size_t)(colon - pattern);
	if (tn >= sizeof(type))
		return false;
	memcpy(type, pattern, tn);
	type[tn] = 0;
	if (!glob_match(type, kind))
		return false;
	const char *p = colon + 1, *next = strchr(p, ':');
	size_t n = next ? (size_t)(next - p) : strlen(p);
	if (n >= len)
		return false;
	memcpy(file, p, n);
	file[n] = 0;
	*rest = next ? next + 1 : "*";
	/* Without a process, a file must be named: "*" alone would read
	 * every file of the current directory. */
	if (list_pid <= 0 && (!n || (glob_has_wildcard(file) &&
				     !strchr(file, '/'))))
		return false;
	return true;
}
