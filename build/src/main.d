build/src/main.o: src/main.c src/lang/ast.h src/lang/types.h \
 src/util/diag.h src/lang/parser.h src/lang/ast.h src/util/arena.h \
 src/util/arena.h src/util/diag.h src/util/strbuf.h src/util/xalloc.h
src/lang/ast.h:
src/lang/types.h:
src/util/diag.h:
src/lang/parser.h:
src/lang/ast.h:
src/util/arena.h:
src/util/arena.h:
src/util/diag.h:
src/util/strbuf.h:
src/util/xalloc.h:
