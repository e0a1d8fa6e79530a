/* toolfind: sonde's own tools found by name (see toolfind.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/toolfind.h"

#ifndef SONDE_TOOLDIR
#define SONDE_TOOLDIR "/usr/local/share/sonde/tools"
#endif

#define MAX_DIRS 16

struct dirs {
	char path[MAX_DIRS][PATH_MAX];
	int n;
};

static void add_dir(struct dirs *d, const char *p, size_t len)
{
	if (d->n == MAX_DIRS || !len || len >= PATH_MAX)
		return;
	memcpy(d->path[d->n], p, len);
	d->path[d->n][len] = '\0';
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->path[i], d->path[d->n]))
			return;
	d->n++;
}

/* The search path, in order (toolfind.h). */
static void search_dirs(struct dirs *d)
{
	d->n = 0;
	const char *env = getenv("SONDE_TOOLS");
	while (env && *env) {
		size_t n = strcspn(env, ":");
		add_dir(d, env, n);
		env += n + (env[n] == ':');
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0'; /* the binary's directory */
			char p[PATH_MAX];
			int k = snprintf(p, sizeof(p), "%s/../tools", exe);
			if (k > 0 && (size_t)k < sizeof(p))
				add_dir(d, p, (size_t)k);
			k = snprintf(p, sizeof(p), "%s/../share/sonde/tools", exe);
			if (k > 0 && (size_t)k < sizeof(p))
				add_dir(d, p, (size_t)k);
		}
	}
	add_dir(d, SONDE_TOOLDIR, strlen(SONDE_TOOLDIR));
}

int toolfind_is_name(const char *name)
{
	if (!*name)
		return 0;
	for (const char *p = name; *p; p++)
		if (!(*p == '_' || *p == '-' || *p == '.' ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return 0;
	return name[0] != '.';
}

int toolfind_path(const char *name, char *buf, size_t size)
{
	if (!toolfind_is_name(name))
		return -ENOENT;
	size_t len = strlen(name);
	const char *ext = len > 3 && !strcmp(name + len - 3, ".bt") ? "" : ".bt";
	struct dirs d;
	search_dirs(&d);
	for (int i = 0; i < d.n; i++) {
		int k = snprintf(buf, size, "%s/%s%s", d.path[i], name, ext);
		if (k < 0 || (size_t)k >= size)
			return -ENAMETOOLONG;
		if (!access(buf, R_OK))
			return 0;
	}
	return -ENOENT;
}

/* The tool's summary: the first phrase of its header, which starts
 * " * NAME<tab>TEXT" (or "NAME.bt", "NAME:"), up to the first ':' or '.'
 * (continuation lines joined). */
static void summary(const char *path, const char *name, char *out,
		    size_t size)
{
	out[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[512];
	size_t nlen = strlen(name), len = 0;
	int on = 0;
	for (int i = 0; i < 12 && fgets(line, sizeof(line), f); i++) {
		char *p = line + strspn(line, " */\t");
		p[strcspn(p, "\n")] = '\0';
		if (!on) {
			if (strncmp(p, name, nlen))
				continue;
			p += nlen;
			if (!strncmp(p, ".bt", 3))
				p += 3;
			if (*p && !strchr(" \t:", *p))
				continue;
			p += strspn(p, " \t:");
			on = 1;
		} else if (!*p) {
			break;
		}
		for (; *p && len + 2 < size; p++) {
			if ((*p == ':' || *p == '.') && (!p[1] || p[1] == ' ')) {
				out[len] = '\0';
				fclose(f);
				return;
			}
			out[len++] = *p;
		}
		if (len + 2 < size)
			out[len++] = ' ';
		out[len] = '\0';
	}
	while (len && out[len - 1] == ' ')
		out[--len] = '\0';
	fclose(f);
}

struct tool {
	char name[64];
	char path[PATH_MAX];
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct tool *)a)->name,
		      ((const struct tool *)b)->name);
}

/* Adds dir's NAME.bt files not already in *t (an earlier directory's
 * tool of the same name hides them). */
static void collect(const char *dir, struct tool **t, int *n, int *cap)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return;
	struct dirent *e;
	while ((e = readdir(dp))) {
		size_t len = strlen(e->d_name);
		if (len <= 3 || len - 3 >= sizeof((*t)->name) ||
		    strcmp(e->d_name + len - 3, ".bt"))
			continue;
		int seen = 0;
		for (int k = 0; k < *n && !seen; k++)
			seen = !strncmp((*t)[k].name, e->d_name, len - 3) &&
			       !(*t)[k].name[len - 3];
		if (seen)
			continue;
		if (*n == *cap) {
			int nc = *cap ? 2 * *cap : 64;
			struct tool *nt = realloc(*t, (size_t)nc * sizeof(*nt));
			if (!nt)
				break;
			*t = nt;
			*cap = nc;
		}
		struct tool *x = &(*t)[(*n)++];
		memcpy(x->name, e->d_name, len - 3);
		x->name[len - 3] = '\0';
		snprintf(x->path, sizeof(x->path), "%s/%s", dir, e->d_name);
	}
	closedir(dp);
}

int toolfind_list(FILE *out)
{
	struct dirs d;
	search_dirs(&d);
	struct tool *t = NULL;
	int n = 0, cap = 0;
	for (int i = 0; i < d.n; i++)
		collect(d.path[i], &t, &n, &cap);
	if (n)
		qsort(t, (size_t)n, sizeof(*t), by_name);
	for (int k = 0; k < n; k++) {
		char sum[256];
		summary(t[k].path, t[k].name, sum, sizeof(sum));
		fprintf(out, "%-16s %s\n", t[k].name, sum);
	}
	free(t);
	fprintf(out, "\n(searched");
	for (int i = 0; i < d.n; i++)
		fprintf(out, " %s", d.path[i]);
	fprintf(out, ")\n");
	return n;
}
