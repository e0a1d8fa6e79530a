build/src/lang/lexer.o: src/lang/lexer.c src/lang/lexer.h \
 src/util/arena.h src/util/diag.h src/util/strbuf.h src/util/vec.h \
 src/util/xalloc.h
src/lang/lexer.h:
src/util/arena.h:
src/util/diag.h:
src/util/strbuf.h:
src/util/vec.h:
src/util/xalloc.h:
