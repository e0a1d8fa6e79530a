# gdb -batch -x dwunwind_gdb.py --args PROGRAM ARGS: stops PROGRAM at
# unw_d's first instruction (where the uprobe of the dwunwind tests fires)
# and prints each frame's pc as gdb's own unwinder finds it, past main, one
# "NAME OFFSET" line per frame (a reference sonde did not write).
import gdb

gdb.execute("set backtrace past-main on")
gdb.execute("set startup-with-shell off")
gdb.execute("break *unw_d")
gdb.execute("run")
f = gdb.newest_frame()
while f is not None:
    s = gdb.execute("info symbol %d" % f.pc(), to_string=True).split(" in section")[0]
    name, _, off = s.partition(" + ")
    print("FRAME %s %s" % (name.strip(), off.strip() or "0"))
    f = f.older()
