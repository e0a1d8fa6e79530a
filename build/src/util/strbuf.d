build/src/util/strbuf.o: src/util/strbuf.c src/util/strbuf.h \
 src/util/xalloc.h
src/util/strbuf.h:
src/util/xalloc.h:
