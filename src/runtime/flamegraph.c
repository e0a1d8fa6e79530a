#include "runtime/flamegraph.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/types.h"
#include "runtime/mapdump.h"
#include "runtime/output.h"
#include "runtime/value_fmt.h"
#include "util/strbuf.h"
#include "util/vec.h"
#include "util/xalloc.h"

static bool is_stack(const struct type *t)
{
	return t->kind == TY_KSTACK || t->kind == TY_USTACK;
}

bool flamegraph_can_draw(const struct type *key, const struct type *value)
{
	if (!key || !value)
		return false;
	if (value->kind != TY_COUNT && value->kind != TY_SUM &&
	    value->kind != TY_INT)
		return false;
	static const enum type_kind stacks[] = { TY_KSTACK, TY_USTACK,
						 TY_NONE };
	return type_holds(key, stacks);
}

/* Appends one frame, with the separator and characters folded stacks
 * cannot hold (';' and newlines) replaced. */
static void add_frame(struct strbuf *line, const char *s, size_t n,
		      const char *suffix)
{
	if (line->len)
		sb_putc(line, ';');
	for (size_t i = 0; i < n; i++)
		sb_putc(line, s[i] == ';' ? ':' :
			      (s[i] == '\n' || s[i] == '\r') ? ' ' : s[i]);
	sb_append(line, suffix);
}

void flamegraph_fold_stack(struct strbuf *line, const struct out_resolver *res,
			  const struct type *t, const uint8_t *data)
{
	bool user = t->kind == TY_USTACK;
	uint64_t pid = 0;
	if (user)
		memcpy(&pid, data + 8, 8);
	const uint8_t *ips;
	uint32_t n = type_stack_frames(t, data, &ips);
	bool truncated = false;
	if (user) {
		n = vfmt_user_frames(res, pid, t, ips, n, &truncated);
		if (truncated) /* the root is unknown */
			add_frame(line, VFMT_TRUNCATED, strlen(VFMT_TRUNCATED),
				  "");
	}
	struct strbuf name = STRBUF_INIT;
	for (uint32_t i = n; i-- > 0;) {
		struct stack_frame fr = type_stack_frame(t, ips, i);
		uint64_t ip = fr.ip;
		sb_reset(&name);
		if (fr.build_id) { /* build_id mode: "BUILDID+0xOFFSET" */
			sb_hex(&name, fr.build_id, 20);
			sb_printf(&name, "+%#" PRIx64, ip);
		} else if (!res || !res->sym ||
			   res->sym(res->ctx, ip, user ? (int32_t)pid : -1,
				    false, &name) < 0) {
			/* no symbol: the file and offset, which merge
			 * across runs and processes, else the address */
			sb_reset(&name);
			if (!user || !res->file_offset ||
			    res->file_offset(res->ctx, ip, (int32_t)pid,
					     &name) < 0) {
				sb_reset(&name);
				sb_printf(&name, "%#" PRIx64, ip);
			}
		}
		add_frame(line, sb_str(&name), name.len, user ? "" : "_[k]");
	}
	sb_free(&name);
}

/* Key fields in the order folded stacks want: others, ustack, kstack. */
static void fold_key(struct strbuf *line, const struct out_resolver *res,
		     const struct type *key, const uint8_t *data)
{
	const struct type *one[1] = { key };
	uint32_t one_off[1] = { 0 };
	uint32_t n = key->kind == TY_TUPLE ? key->nfields : 1;
	struct strbuf text = STRBUF_INIT;
	struct vfmt f = { .res = res, .stack_indent = VFMT_VALUE_INDENT };
	for (int pass = 0; pass < 3; pass++)
		for (uint32_t i = 0; i < n; i++) {
			const struct type *t = key->kind == TY_TUPLE ?
						       key->fields[i].type :
						       one[i];
			uint32_t off = key->kind == TY_TUPLE ?
					       key->fields[i].offset :
					       one_off[i];
			if (pass == 0 && !is_stack(t)) {
				sb_reset(&text);
				vfmt_value(&text, &f, t, data + off);
				add_frame(line, sb_str(&text), text.len, "");
			} else if ((pass == 1 && t->kind == TY_USTACK) ||
				   (pass == 2 && t->kind == TY_KSTACK)) {
				flamegraph_fold_stack(line, res, t, data + off);
			}
		}
	sb_free(&text);
}

static int by_frames(const void *a, const void *b)
{
	return strcmp(((const struct flame_line *)a)->frames,
		      ((const struct flame_line *)b)->frames);
}

typedef VEC(struct flame_line) line_vec;

static int fold_map(line_vec *lines, const struct mapdump_map *m,
		    const struct out_resolver *res, bool prefix)
{
	struct mapdump_entries e;
	int err = mapdump_read(m, &e);
	if (err)
		return err;
	struct strbuf line = STRBUF_INIT;
	for (size_t i = 0; i < e.n; i++) {
		const uint8_t *v = e.vals + i * e.vsize;
		int64_t count = (int64_t)vfmt_load_int(v, m->value->size > 8 ?
								 8 :
								 m->value->size,
						       m->value->is_signed ||
							       m->value->kind !=
								       TY_INT);
		if (count <= 0)
			continue;
		sb_reset(&line);
		if (prefix)
			add_frame(&line, m->name, strlen(m->name), "");
		fold_key(&line, res, m->key, e.keys + i * e.ksize);
		if (!line.len)
			sb_append(&line, "[empty]");
		struct flame_line l = { xstrdup(sb_str(&line)),
					(uint64_t)count };
		vec_push(lines, l);
	}
	sb_free(&line);
	mapdump_entries_free(&e);
	return 0;
}

/* Sorts and merges identical lines. */
static void merge_lines(line_vec *lines)
{
	if (!lines->len)
		return;
	qsort(lines->data, lines->len, sizeof(*lines->data), by_frames);
	size_t k = 0;
	for (size_t i = 1; i < lines->len; i++) {
		if (!strcmp(lines->data[k].frames, lines->data[i].frames)) {
			lines->data[k].count += lines->data[i].count;
			free(lines->data[i].frames);
		} else {
			lines->data[++k] = lines->data[i];
		}
	}
	lines->len = k + 1;
}

void flamegraph_folded(FILE *f, const struct flame_line *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %" PRIu64 "\n", lines[i].frames,
			lines[i].count);
}

void flamegraph_js_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == '"' || c == '\\' || c == '<' ||
		    c == '>' || c == '&')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The page: styles, placeholders, and the script that builds the frames
 * from `data` (pairs of folded stack and count). */
static const char svg_head[] =
	"<?xml version=\"1.0\" standalone=\"no\"?>\n"
	"<svg version=\"1.1\" width=\"1200\" height=\"200\" "
	"viewBox=\"0 0 1200 200\" xmlns=\"http://www.w3.org/2000/svg\">\n"
	"<style type=\"text/css\">\n"
	"text { font-family: Verdana, sans-serif; font-size: 12px; "
	"fill: #000; }\n"
	"#title { font-size: 17px; text-anchor: middle; }\n"
	"g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
	"g.f text { pointer-events: none; }\n"
	"g.up rect { opacity: 0.5; }\n"
	"</style>\n"
	"<rect id=\"bg\" x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
	"fill=\"#f8f4ee\"/>\n";

static const char svg_script[] =
	"var NS = 'http://www.w3.org/2000/svg', W = 1200, PAD = 10, FH = 16;\n"
	"var svg = document.documentElement;\n"
	"var root = { n: 'all', v: 0, x: 0, c: {}, p: null }, depth = 0;\n"
	"data.forEach(function (l) {\n"
	"  var node = root, d = 0;\n"
	"  root.v += l[1];\n"
	"  l[0].split(';').forEach(function (f) {\n"
	"    var c = node.c[f];\n"
	"    if (!c) c = node.c[f] = { n: f, v: 0, c: {}, p: node };\n"
	"    c.v += l[1]; node = c; d++;\n"
	"  });\n"
	"  if (d > depth) depth = d;\n"
	"});\n"
	"/* x: the first sample of each frame, children in name order */\n"
	"(function place(n) {\n"
	"  var x = n.x;\n"
	"  Object.keys(n.c).sort().forEach(function (k) {\n"
	"    n.c[k].x = x; x += n.c[k].v; place(n.c[k]);\n"
	"  });\n"
	"})(root);\n"
	"/* Sized to its frames, the root at the bottom as flamegraph.pl\n"
	" * draws it. A graph deeper than the window (800 px or more) gets\n"
	" * thinner frames rather than a page whose root is below the first\n"
	" * screen and whose top is empty: the whole graph is on screen, and\n"
	" * hovering names any frame. */\n"
	"var screenH = Math.max(window.innerHeight || 0, 800);\n"
	"if ((depth + 1) * FH + 90 > screenH)\n"
	"  FH = Math.max(1, Math.floor((screenH - 90) / (depth + 1)));\n"
	"var H = (depth + 1) * FH + 90;\n"
	"svg.setAttribute('height', H);\n"
	"svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);\n"
	"var frames = document.getElementById('frames');\n"
	"var details = document.getElementById('details');\n"
	"details.setAttribute('y', H - 10);\n"
	"function color(name) {\n"
	"  var h = 0;\n"
	"  for (var i = 0; i < name.length; i++)\n"
	"    h = (h * 31 + name.charCodeAt(i)) >>> 0;\n"
	"  if (/_\\[k\\]$/.test(name))\n"
	"    return 'rgb(' + (220 + h % 30) + ',' + (120 + h % 60) + ',40)';\n"
	"  return 'rgb(' + (205 + h % 50) + ',' + (h >> 8) % 200 + ',' +\n"
	"    (h >> 16) % 55 + ')';\n"
	"}\n"
	"function label(n) {\n"
	"  var pct = root.v ? (100 * n.v / root.v).toFixed(2) : '0.00';\n"
	"  return n.n + ' (' + n.v + ' samples, ' + pct + '%)';\n"
	"}\n"
	"function isAncestor(a, n) {\n"
	"  for (; n; n = n.p) if (n === a) return true;\n"
	"  return false;\n"
	"}\n"
	"function draw(zoom) {\n"
	"  while (frames.firstChild) frames.removeChild(frames.firstChild);\n"
	"  var scale = (W - 2 * PAD) / zoom.v;\n"
	"  (function visit(n, d) {\n"
	"    var up = n !== zoom && isAncestor(n, zoom);\n"
	"    var x = up ? PAD : PAD + (n.x - zoom.x) * scale;\n"
	"    var w = up ? W - 2 * PAD : n.v * scale;\n"
	"    if (w < 0.1) return;\n"
	"    var g = document.createElementNS(NS, 'g');\n"
	"    g.setAttribute('class', up ? 'f up' : 'f');\n"
	"    var t = document.createElementNS(NS, 'title');\n"
	"    t.textContent = label(n);\n"
	"    var r = document.createElementNS(NS, 'rect');\n"
	"    var y = H - 40 - (d + 1) * FH;\n"
	"    r.setAttribute('x', x); r.setAttribute('y', y);\n"
	"    r.setAttribute('width', w);\n"
	"    r.setAttribute('height', FH > 2 ? FH - 1 : FH);\n"
	"    r.setAttribute('rx', 2);\n"
	"    r.setAttribute('fill', n === root ? '#d0a080' : color(n.n));\n"
	"    var s = document.createElementNS(NS, 'text');\n"
	"    s.setAttribute('x', x + 3); s.setAttribute('y', y + 12);\n"
	"    var fit = FH < 12 ? 0 : Math.floor((w - 6) / 7);\n"
	"    s.textContent = fit < 3 ? '' : n.n.length <= fit ? n.n :\n"
	"      n.n.slice(0, fit - 2) + '..';\n"
	"    g.appendChild(t); g.appendChild(r); g.appendChild(s);\n"
	"    g.onmouseover = function () { details.textContent = label(n); };\n"
	"    g.onmouseout = function () { details.textContent = ' '; };\n"
	"    g.onclick = function () { draw(n === zoom ? root : n); };\n"
	"    frames.appendChild(g);\n"
	"    if (up || isAncestor(zoom, n))\n"
	"      Object.keys(n.c).forEach(function (k) { visit(n.c[k], d + 1); });\n"
	"  })(root, 0);\n"
	"}\n"
	"draw(root);\n";

void flamegraph_svg(FILE *f, const struct flame_line *lines, size_t n,
		    const char *title)
{
	fputs(svg_head, f);
	fputs("<text id=\"title\" x=\"600\" y=\"24\">", f);
	for (const char *s = title; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
	fputs("</text>\n<text id=\"hint\" x=\"10\" y=\"24\">"
	      "click a frame to zoom, again to reset</text>\n"
	      "<text id=\"details\" x=\"10\" y=\"190\"> </text>\n"
	      "<g id=\"frames\"></g>\n"
	      "<script type=\"text/ecmascript\"><![CDATA[\nvar data = [\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		fputc('[', f);
		flamegraph_js_string(f, lines[i].frames);
		fprintf(f, ", %" PRIu64 "]%s\n", lines[i].count,
			i + 1 < n ? "," : "");
	}
	fputs("];\n", f);
	fputs(svg_script, f);
	fputs("]]></script>\n</svg>\n", f);
}

static int write_file(const char *path, const line_vec *lines, bool svg,
		      FILE *err)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		int e = -errno;
		fprintf(err, "sonde: cannot write %s: %s\n", path, strerror(-e));
		return e;
	}
	if (svg)
		flamegraph_svg(f, lines->data, lines->len, "Flame Graph");
	else
		flamegraph_folded(f, lines->data, lines->len);
	if (fclose(f)) {
		int e = -errno;
		fprintf(err, "sonde: cannot write %s: %s\n", path, strerror(-e));
		return e;
	}
	return 0;
}

int flamegraph_write(const struct mapdump_map *maps, size_t n,
		     const struct out_resolver *res, const char *folded_path,
		     const char *svg_path, FILE *err)
{
	size_t drawable = 0;
	for (size_t i = 0; i < n; i++)
		drawable += flamegraph_can_draw(maps[i].key, maps[i].value);
	if (!drawable) {
		fprintf(err, "sonde: no map keyed by kstack or ustack with "
			     "count() values to draw a flame graph of\n");
		return -ENOENT;
	}
	line_vec lines = { 0 };
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		if (flamegraph_can_draw(maps[i].key, maps[i].value))
			rc = fold_map(&lines, &maps[i], res, drawable > 1);
	if (rc)
		fprintf(err, "sonde: cannot read a map for the flame graph: "
			     "%s\n", strerror(-rc));
	merge_lines(&lines);
	if (!rc && folded_path)
		rc = write_file(folded_path, &lines, false, err);
	if (!rc && svg_path)
		rc = write_file(svg_path, &lines, true, err);
	for (size_t i = 0; i < lines.len; i++)
		free(lines.data[i].frames);
	vec_free(&lines);
	return rc;
}
