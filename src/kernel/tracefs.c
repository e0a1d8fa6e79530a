#include "kernel/tracefs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "kernel/glob.h"
#include "kernel/sysfs.h"
#include "model/types.h"
#include "util/arena.h"
#include "util/xalloc.h"

static const char *const tracefs_mounts[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static bool is_tracefs(const char *dir)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/available_events", dir);
	return access(path, R_OK) == 0;
}

const char *tracefs_dir(void)
{
	static const char *dir;
	static int err;
	if (dir)
		return dir;
	if (err) {
		errno = err;
		return NULL;
	}
	for (size_t i = 0; i < sizeof(tracefs_mounts) / sizeof(*tracefs_mounts); i++)
		if (is_tracefs(tracefs_mounts[i]))
			return dir = tracefs_mounts[i];
	/* Not mounted (a bare container, a minimal init): mount it where the
	 * kernel creates the empty mount point for it. */
	if (mount("tracefs", tracefs_mounts[0], "tracefs", 0, NULL) == 0 &&
	    is_tracefs(tracefs_mounts[0]))
		return dir = tracefs_mounts[0];
	err = errno ? errno : ENOENT;
	errno = err;
	return NULL;
}

int tracefs_path(char *buf, size_t n, const char *rel)
{
	const char *dir = tracefs_dir();
	if (!dir)
		return -errno;
	int len = snprintf(buf, n, "%s/%s", dir, rel);
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

static int event_path(char *buf, size_t n, const char *cat, const char *name,
		      const char *file)
{
	/* A '/' or ".." in a name would escape events/. */
	if (strchr(cat, '/') || strchr(name, '/') || !strcmp(cat, "..") ||
	    !strcmp(name, ".."))
		return -EINVAL;
	char rel[512];
	int len = snprintf(rel, sizeof(rel), "events/%s/%s%s%s", cat, name,
			   file ? "/" : "", file ? file : "");
	if (len < 0 || (size_t)len >= sizeof(rel))
		return -ENAMETOOLONG;
	return tracefs_path(buf, n, rel);
}

/* --- files read once ---
 * A tracefs read waits for the kernel's event_mutex, which another tracer
 * attaching holds for seconds (14 s per format file measured while
 * bpftrace attached tracepoint:syscalls:sys_enter_*), and a wildcard
 * reads a format per match. Which events exist and their formats do not
 * change while a script compiles: each file is read, or checked, once a
 * process. */

struct memo {
	char *key;  /* 'r' (read) or 'a' (access) then the path */
	char *text; /* what was read */
	int err;    /* 0 or -errno; MEMO_NEW before the first try */
};

#define MEMO_NEW 1

static struct {
	struct memo *slots;
	uint32_t mask, n;
} memo;

static uint32_t memo_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static struct memo *memo_slot(struct memo *slots, uint32_t mask,
			      const char *key)
{
	uint32_t h = memo_hash(key);
	while (slots[h & mask].key && strcmp(slots[h & mask].key, key))
		h++;
	return &slots[h & mask];
}

/* The entry of key, new (err MEMO_NEW) if there was none. */
static struct memo *memo_entry(char kind, const char *path)
{
	char key[PATH_MAX + 2];
	snprintf(key, sizeof(key), "%c%s", kind, path);
	if (2 * (memo.n + 1) > memo.mask) {
		uint32_t cap = memo.slots ? 2 * (memo.mask + 1) : 256;
		struct memo *grown = xcalloc(cap, sizeof(*grown));
		for (uint32_t i = 0; memo.slots && i <= memo.mask; i++)
			if (memo.slots[i].key)
				*memo_slot(grown, cap - 1, memo.slots[i].key) =
					memo.slots[i];
		free(memo.slots);
		memo.slots = grown;
		memo.mask = cap - 1;
	}
	struct memo *m = memo_slot(memo.slots, memo.mask, key);
	if (!m->key) {
		m->key = xstrdup(key);
		m->err = MEMO_NEW;
		memo.n++;
	}
	return m;
}

/* sysfs_slurp(path) once it succeeds; the text stays the memo's. */
static int memo_slurp(const char *path, const char **text)
{
	struct memo *m = memo_entry('r', path);
	if (m->err)
		m->err = sysfs_slurp(path, &m->text, NULL);
	*text = m->text;
	return m->err;
}

/* access(path, R_OK) == 0, asked once. */
static bool memo_readable(const char *path)
{
	struct memo *m = memo_entry('a', path);
	if (m->err == MEMO_NEW)
		m->err = access(path, R_OK) ? -errno : 0;
	return m->err == 0;
}

/* --- format parsing --- */

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static char *trimmed_dup(struct arena *a, const char *s, const char *e)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	return arena_strndup(a, s, (size_t)(e - s));
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* "KEY:NUMBER;" somewhere after p on the same line. */
static int line_number(const char *p, const char *eol, const char *key,
		       uint32_t *out)
{
	size_t kl = strlen(key);
	for (; p + kl < eol; p++) {
		if (!strncmp(p, key, kl)) {
			char *end;
			unsigned long v = strtoul(p + kl, &end, 10);
			if (end == p + kl)
				return -EINVAL;
			*out = (uint32_t)v;
			return 0;
		}
	}
	return -EINVAL;
}

/* decl is "TYPE NAME", "TYPE NAME[N]" or "__data_loc TYPE[] NAME". */
static int parse_decl(struct arena *a, const char *s, const char *e,
		      struct tracefs_field *f)
{
	s = skip_ws(s);
	if (starts_with(s, "__data_loc ")) {
		f->loc = TRACEFS_DATA_LOC;
		s += strlen("__data_loc ");
	} else if (starts_with(s, "__rel_loc ")) {
		f->loc = TRACEFS_REL_LOC;
		s += strlen("__rel_loc ");
	}
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (e > s && e[-1] == ']') {
		const char *lb = e - 1;
		while (lb > s && *lb != '[')
			lb--;
		if (*lb != '[')
			return -EINVAL;
		f->is_array = true;
		/* Non-numeric lengths (rare) are worked out from size later. */
		if (isdigit((unsigned char)lb[1]))
			f->array_len = (uint32_t)strtoul(lb + 1, NULL, 10);
		e = lb;
	}
	const char *n = e;
	while (n > s && (isalnum((unsigned char)n[-1]) || n[-1] == '_'))
		n--;
	if (n == e)
		return -EINVAL;
	f->name = arena_strndup(a, n, (size_t)(e - n));
	const char *te = n;
	while (te > s && isspace((unsigned char)te[-1]))
		te--;
	/* __data_loc's "char[]" is on the type side. */
	if (te - s >= 2 && te[-2] == '[' && te[-1] == ']') {
		f->is_array = true;
		te -= 2;
	}
	if (te == s)
		return -EINVAL;
	f->ctype = trimmed_dup(a, s, te);
	f->is_common = starts_with(f->name, "common_");
	return 0;
}

int tracefs_parse_format(struct arena *a, const char *text,
			 struct tracefs_format *out)
{
	memset(out, 0, sizeof(*out));
	uint32_t cap = 0;
	for (const char *line = text; *line;) {
		const char *eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		const char *p = skip_ws(line);
		if (starts_with(p, "name:")) {
			out->name = trimmed_dup(a, p + 5, eol);
		} else if (starts_with(p, "ID:")) {
			out->id = (uint32_t)strtoul(p + 3, NULL, 10);
		} else if (starts_with(p, "field:")) {
			const char *semi = memchr(p, ';', (size_t)(eol - p));
			if (!semi)
				return -EINVAL;
			struct tracefs_field f = { 0 };
			int err = parse_decl(a, p + 6, semi, &f);
			if (!err)
				err = line_number(semi, eol, "offset:", &f.offset);
			if (!err)
				err = line_number(semi, eol, "size:", &f.size);
			if (err)
				return err;
			uint32_t sg = 0;
			line_number(semi, eol, "signed:", &sg);
			f.is_signed = sg != 0;
			if (out->nfields == cap) {
				cap = cap ? cap * 2 : 16;
				struct tracefs_field *nf =
					arena_alloc(a, sizeof(*nf) * cap);
				if (out->nfields)
					memcpy(nf, out->fields,
					       sizeof(*nf) * out->nfields);
				out->fields = nf;
			}
			out->fields[out->nfields++] = f;
		} else if (starts_with(p, "print fmt:")) {
			break;
		}
		line = *eol ? eol + 1 : eol;
	}
	return out->name ? 0 : -EINVAL;
}

int tracefs_format(struct arena *a, const char *cat, const char *name,
		   struct tracefs_format *out)
{
	char path[512];
	const char *text;
	int err = event_path(path, sizeof(path), cat, name, "format");
	if (err)
		return err;
	err = memo_slurp(path, &text);
	if (err)
		return err;
	err = tracefs_parse_format(a, text, out);
	if (err)
		return err;
	out->category = arena_strdup(a, cat);
	return 0;
}

int tracefs_event_id(const char *cat, const char *name)
{
	char path[512];
	uint64_t id;
	int err = event_path(path, sizeof(path), cat, name, "id");
	if (!err)
		err = sysfs_read_u64(path, &id);
	return err ? err : (int)id;
}

bool tracefs_event_exists(const char *cat, const char *name)
{
	char path[512];
	return event_path(path, sizeof(path), cat, name, "id") == 0 &&
	       memo_readable(path);
}

const struct tracefs_field *tracefs_find_field(const struct tracefs_format *fmt,
					       const char *name)
{
	for (uint32_t i = 0; i < fmt->nfields; i++)
		if (!strcmp(fmt->fields[i].name, name))
			return &fmt->fields[i];
	return NULL;
}

/* --- C type text -> sonde type --- */

struct ctype_info {
	uint32_t size;
	bool is_signed;
};

static bool ctype_lookup(const char *text, struct ctype_info *out)
{
	return type_c_int(text, &out->size, &out->is_signed);
}

static bool is_plain_char(const char *text)
{
	if (starts_with(text, "const "))
		text += 6;
	return !strcmp(text, "char");
}

/* The pointee of "T *": text is T, possibly ending in more stars. */
static const struct type *pointee_type(struct arena *a, const char *text,
				       bool user)
{
	size_t n = strlen(text);
	/* a qualifier of the pointer itself ("const char *const *argv")
	 * changes nothing read through it */
	for (;;) {
		while (n && text[n - 1] == ' ')
			n--;
		if (n > 5 && !strncmp(text + n - 5, "const", 5) &&
		    (text[n - 6] == ' ' || text[n - 6] == '*'))
			n -= 5;
		else
			break;
	}
	char *t = arena_strndup(a, text, n);
	if (n && t[n - 1] == '*') {
		t[n - 1] = '\0';
		return type_ptr(a, pointee_type(a, t, user), user);
	}
	const char *base = starts_with(t, "const ") ? t + 6 : t;
	struct ctype_info ci;
	if (ctype_lookup(base, &ci))
		return type_int(ci.size, ci.is_signed);
	if (starts_with(base, "struct ") || starts_with(base, "union ")) {
		/* A shell named for BTF to fill in if it is dereferenced:
		 * tracefs alone does not know the layout. */
		struct type *r = type_new(a, TY_RECORD, 0);
		r->name = arena_strdup(a, base);
		r->is_union = base[0] == 'u';
		r->is_user = user;
		return r;
	}
	return &type_void;
}

static const struct type *elem_type(struct arena *a, const char *ctype,
				    uint32_t fallback_size, bool user)
{
	size_t n = strlen(ctype);
	if (n && ctype[n - 1] == '*')
		return type_ptr(a, pointee_type(a, arena_strndup(a, ctype, n - 1),
						user),
				user);
	struct ctype_info ci;
	if (ctype_lookup(ctype, &ci))
		return type_int(ci.size, ci.is_signed);
	if (fallback_size == 1 || fallback_size == 2 || fallback_size == 4 ||
	    fallback_size == 8)
		return type_int((int)fallback_size, false);
	return &type_u8;
}

const struct type *tracefs_field_type(struct arena *a,
				      const struct tracefs_field *f,
				      bool user_ptrs)
{
	if (f->loc != TRACEFS_PLAIN) {
		/* The loc word points into the record, i.e. kernel memory. */
		const struct type *el = is_plain_char(f->ctype)
			? &type_s8
			: elem_type(a, f->ctype, 1, false);
		return type_ptr(a, el, false);
	}
	if (f->is_array) {
		/* Inline in the record, so never user memory. */
		if (is_plain_char(f->ctype))
			return type_string(a, f->size);
		uint32_t guess = f->array_len ? f->size / f->array_len : 1;
		const struct type *el = elem_type(a, f->ctype, guess, user_ptrs);
		struct type *t = type_new(a, TY_ARRAY, f->size);
		t->elem = el;
		t->align = el->align ? el->align : 1;
		t->count = el->size ? f->size / el->size : 0;
		return t;
	}
	size_t n = strlen(f->ctype);
	if (n && f->ctype[n - 1] == '*')
		return elem_type(a, f->ctype, 8, user_ptrs);
	/* A scalar: the record decides the size (syscall args are all
	 * 8 bytes even when declared int), the C type the sign, as
	 * bpftrace's adjust_integer_types does. */
	struct ctype_info ci;
	bool sg = ctype_lookup(f->ctype, &ci) ? ci.is_signed : f->is_signed;
	if ((f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) &&
	    starts_with(f->ctype, "enum ")) {
		/* named for sema to find its enumerators in BTF when the
		 * field is read (reading the format needs no BTF) */
		struct type *t = type_new(a, TY_INT, f->size);
		t->is_signed = sg;
		t->name = arena_strdup(a, f->ctype);
		return t;
	}
	if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)
		return type_int((int)f->size, sg);
	struct type *t = type_new(a, TY_ARRAY, f->size);
	t->elem = &type_u8;
	t->count = f->size;
	t->align = 1;
	return t;
}

const struct type *tracefs_args_type(struct arena *a,
				     const struct tracefs_format *fmt)
{
	bool user = fmt->category && !strcmp(fmt->category, "syscalls");
	struct type *r = type_new(a, TY_RECORD, 0);
	r->name = arena_printf(a, "struct _tracepoint_%s_%s",
			       fmt->category ? fmt->category : "", fmt->name);
	r->fields = arena_alloc(a, sizeof(*r->fields) * (fmt->nfields + 1));
	uint32_t end = 0, align = 1;
	for (uint32_t i = 0; i < fmt->nfields; i++) {
		const struct tracefs_field *f = &fmt->fields[i];
		if (f->offset + f->size > end)
			end = f->offset + f->size;
		if (f->is_common)
			continue;
		struct type_field *tf = &r->fields[r->nfields++];
		tf->name = f->name;
		tf->type = tracefs_field_type(a, f, user);
		tf->offset = f->offset;
		tf->loc = f->loc == TRACEFS_DATA_LOC ? FIELD_DATA_LOC :
			  f->loc == TRACEFS_REL_LOC ? FIELD_REL_LOC :
						       FIELD_PLAIN;
		if (tf->type->align > align)
			align = tf->type->align;
	}
	r->size = end;
	r->align = align > 8 ? 8 : align;
	return r;
}

/* --- wildcard expansion --- */

int tracefs_match(const char *pat_cat, const char *pat_name,
		  tracefs_match_cb cb, void *ctx)
{
	if (!glob_has_wildcard(pat_cat) && !glob_has_wildcard(pat_name)) {
		if (!tracefs_dir())
			return -errno;
		if (!tracefs_event_exists(pat_cat, pat_name))
			return 0;
		int r = cb(pat_cat, pat_name, ctx);
		return r ? r : 1;
	}
	char path[512];
	const char *text;
	int err = tracefs_path(path, sizeof(path), "available_events");
	if (!err)
		err = memo_slurp(path, &text);
	if (err)
		return err;
	/* the loop cuts lines in place: a copy of the memo's text */
	char *lines = xstrdup(text);
	int count = 0, ret = 0;
	for (char *line = lines; *line && !ret;) {
		char *eol = strchr(line, '\n');
		if (eol)
			*eol = '\0';
		char *colon = strchr(line, ':');
		if (colon) {
			*colon = '\0';
			if (glob_match(pat_cat, line) &&
			    glob_match(pat_name, colon + 1)) {
				count++;
				ret = cb(line, colon + 1, ctx);
			}
		}
		line = eol ? eol + 1 : line + strlen(line);
	}
	free(lines);
	return ret ? ret : count;
}

/* --- kprobe_events --- */

int tracefs_kprobe_write(const char *def)
{
	char path[512];
	int err = tracefs_path(path, sizeof(path), "kprobe_events");
	if (err)
		return err;
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t n = strlen(def);
	ssize_t w = write(fd, def, n);
	err = w < 0 ? -errno : (size_t)w != n ? -EIO : 0;
	close(fd);
	return err;
}

int tracefs_kprobe_remove(const char *group, const char *event)
{
	char def[256];
	if ((size_t)snprintf(def, sizeof(def), "-:%s/%s", group, event) >=
	    sizeof(def))
		return -ENAMETOOLONG;
	int err = 0;
	/* 50 x 20 ms: a perf event's last reference can be dropped a little
	 * after its fd's close returned */
	for (int i = 0; i < 50; i++) {
		err = tracefs_kprobe_write(def);
		if (err != -EBUSY)
			break;
		usleep(20000);
	}
	return err;
}

int tracefs_kprobe_each(const char *text,
			int (*fn)(const char *group, const char *event,
				  const char *line, void *ctx),
			void *ctx)
{
	for (const char *line = text; *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		/* "r64:GROUP/EVENT FUNC ...": the name after the colon */
		const char *colon = memchr(line, ':', len);
		const char *sp = memchr(line, ' ', len);
		if (colon && (!sp || colon < sp)) {
			const char *name = colon + 1;
			size_t nlen = (sp ? (size_t)(sp - name) :
					    len - (size_t)(name - line));
			const char *slash = memchr(name, '/', nlen);
			char group[256], event[256], whole[1024];
			if (slash && (size_t)(slash - name) < sizeof(group) &&
			    nlen - (size_t)(slash - name) <= sizeof(event) &&
			    len < sizeof(whole)) {
				size_t gl = (size_t)(slash - name);
				memcpy(group, name, gl);
				group[gl] = 0;
				memcpy(event, slash + 1, nlen - gl - 1);
				event[nlen - gl - 1] = 0;
				memcpy(whole, line, len);
				whole[len] = 0;
				int r = fn(group, event, whole, ctx);
				if (r)
					return r;
			}
		}
		line += len + (eol ? 1 : 0);
	}
	return 0;
}

int tracefs_profile_missed(const char *text, const char *event,
			   uint64_t *missed)
{
	size_t elen = strlen(event);
	for (const char *line = text; *line;) {
		const char *p = skip_ws(line);
		const char *eol = strchr(p, '\n');
		unsigned long long hits, miss;
		if (!strncmp(p, event, elen) && (p[elen] == ' ' ||
						  p[elen] == '\t') &&
		    sscanf(p + elen, "%llu %llu", &hits, &miss) == 2) {
			*missed = miss;
			return 0;
		}
		if (!eol)
			break;
		line = eol + 1;
	}
	return -ENOENT;
}
