build/src/lang/types.o: src/lang/types.c src/lang/types.h \
 src/util/arena.h src/util/strbuf.h
src/lang/types.h:
src/util/arena.h:
src/util/strbuf.h:
