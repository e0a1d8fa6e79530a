/* The kernel's release, said in refusals (krelease.h). */
#include "kernel/krelease.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

const char *krelease(void)
{
	static char rel[sizeof(((struct utsname *)0)->release)];
	if (rel[0])
		return rel;
	struct utsname u;
	if (uname(&u) < 0) {
		snprintf(rel, sizeof(rel), "unknown");
		return rel;
	}
	/* up to the second dot: "5.10.0-46-amd64" is 5.10 */
	size_t n = strspn(u.release, "0123456789");
	if (n && u.release[n] == '.') {
		size_t m = strspn(u.release + n + 1, "0123456789");
		if (m)
			n += 1 + m;
		else
			n = strlen(u.release);
	} else {
		n = strlen(u.release);
	}
	snprintf(rel, sizeof(rel), "%.*s", (int)n, u.release);
	return rel;
}

void krelease_needs(char *buf, size_t len, const char *name,
		    enum feat_id f)
{
	const char *since = feat_since(f);
	const char *why = feat_reason(f);
	/* feat_disable() words its reason "disabled by <who>" */
	bool disabled = why && !strncmp(why, "disabled by ", 12);
	char ver[48] = "";
	if (since)
		snprintf(ver, sizeof(ver), " (Linux %s)", since);
	if (disabled)
		snprintf(buf, len, "%s%s; it is %s", name, ver, why);
	else
		snprintf(buf, len, "%s%s; this kernel is %s", name, ver,
			 krelease());
}
