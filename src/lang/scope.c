/* Block scopes: one stack of open scopes (see scope.h). */
#include "lang/scope.h"

#include <string.h>

void scope_reset(struct scopes *sc)
{
	sc->entries.len = 0;
	sc->marks.len = 0;
	sc->gone.len = 0;
}

void scope_push(struct scopes *sc)
{
	vec_push(&sc->marks, (uint32_t)sc->entries.len);
}

void scope_pop(struct scopes *sc)
{
	if (!sc->marks.len)
		return;
	uint32_t first = sc->marks.data[--sc->marks.len];
	for (size_t i = first; i < sc->entries.len; i++)
		vec_push(&sc->gone, sc->entries.data[i].name);
	sc->entries.len = first;
}

int32_t scope_find(const struct scopes *sc, const char *name,
		   uint32_t *level)
{
	for (size_t i = sc->entries.len; i-- > 0;) {
		if (strcmp(sc->entries.data[i].name, name))
			continue;
		if (level) {
			uint32_t l = (uint32_t)sc->marks.len;
			while (l > 0 && sc->marks.data[l - 1] > i)
				l--;
			*level = l ? l - 1 : 0;
		}
		return sc->entries.data[i].id;
	}
	return -1;
}

void scope_add(struct scopes *sc, const char *name, int32_t id)
{
	struct scope_entry e = { name, id };
	vec_push(&sc->entries, e);
}

uint32_t scope_depth(const struct scopes *sc)
{
	return (uint32_t)sc->marks.len;
}

bool scope_was_closed(const struct scopes *sc, const char *name)
{
	for (size_t i = 0; i < sc->gone.len; i++)
		if (!strcmp(sc->gone.data[i], name))
			return true;
	return false;
}

void scope_free(struct scopes *sc)
{
	vec_free(&sc->entries);
	vec_free(&sc->marks);
	vec_free(&sc->gone);
}
