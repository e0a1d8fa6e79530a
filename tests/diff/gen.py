#!/usr/bin/python3
"""Random well-typed bpftrace programs for the differential layer.

generate(seed) returns one program section (the statements of a BEGIN
block) and what the driver needs to know about its maps.  The generator
evaluates every expression as it writes it (bpftrace 0.17's semantics:
operands widened to 64 bits by their own sign, unsigned unless both are
signed), so that it can stay inside the part of the language where 0.17
and 0.26 agree: no division by zero, no negative operand of / % >> (0.17
divides and shifts unsigned), no shift of 64 or more, no arithmetic whose
result the two versions type differently.  Every such choice is listed
in KNOWN.md.  A seed gives one program (random.Random(seed)).

Run alone: gen.py SEED prints a whole program (BEGIN { ... exit(); }).
"""
import random
import sys

INT_TYPES = [(b, s) for b in (8, 16, 32, 64) for s in (False, True)]
U64 = (64, False)
I64 = (64, True)


def tname(t):
    return ('int' if t[1] else 'uint') + str(t[0])


def wrap(v, t):
    """v cut to type t, as the value that type reads back."""
    bits, signed = t
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def fits(v, t):
    return wrap(v, t) == v


# Words for string literals: no '%' or '\\' (printf), no ':' (so that a
# map line's value is what follows its last ": ").
WORDS = ["", "a", "b", "ab", "abc", "abd", "hello", "world", "x y", "sonde",
         "bpf", "trace", "hello world", "AB", "Zz", "0", "42", "a-b", "end."]

LITERALS = [0, 1, 2, 3, 5, 7, 8, 10, 15, 16, 31, 32, 63, 64, 100, 127, 128,
            200, 255, 256, 1000, 4095, 32767, 32768, 65535, 65536, 100000,
            2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**40 + 3, 2**62, 2**63 - 1]


class Int:
    """An integer expression: its text, 0.17 type and value.  sure: 0.26
    gives it the same signedness as 0.17 (0.26 makes a binop signed when
    either side is, and a difference always; 0.17 when both are, and a
    shift by its left side's); lit: a non-negative literal, which 0.26
    lets take the other side's sign."""
    def __init__(self, text, t, v, simple=False, sure=True, lit=False):
        self.text, self.t, self.v, self.simple = text, t, v, simple
        self.sure, self.lit = sure, lit

    def paren(self):
        return self.text if self.simple else "(" + self.text + ")"


class Str:
    """plain: a literal, or a variable that holds one (not a ternary's
    value, whose bytes past the NUL 0.17's strcontains() reads)."""
    def __init__(self, text, v, plain=True):
        self.text, self.v, self.plain = text, v, plain


def qstr(s):
    return '"' + s + '"'


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.p = "s%d_" % seed
        self.ivars = {}    # $name -> [type, value]
        self.svars = {}    # $name -> value
        self.tvars = {}    # $name -> list of Int/Str elements
        self.maps = {}     # @name -> dict(kind, key, vt, entries)
        self.lines = []
        self.nvar = 0
        self.nmap = 0
        self.live = True   # statements being written are executed
        # a key reads no map and no variable: it is written again as it
        # was first, and a delete or an assignment would change what it
        # names
        self.in_key = False

    # -- integers ---------------------------------------------------------
    def leaf(self):
        r = self.r
        c = r.random()
        if c < 0.3 and self.ivars and not self.in_key:
            name = r.choice(sorted(self.ivars))
            t, v, sure = self.ivars[name]
            return Int(name, t, v, True, sure)
        if c < 0.4:
            tv = [(n, i) for n, el in sorted(self.tvars.items())
                  for i, e in enumerate(el) if isinstance(e, Int)]
            if tv:
                n, i = r.choice(tv)
                e = self.tvars[n][i]
                return Int("%s.%d" % (n, i), e.t, e.v, True, e.sure)
        if c < 0.5 and not self.in_key:
            cands = [(n, k) for n, m in sorted(self.maps.items())
                     if m["kind"] == "int" and m["key"] != "none"
                     for k in m["entries"]]
            if cands:
                n, k = r.choice(cands)
                m = self.maps[n]
                return Int("%s[%s]" % (n, m["ktext"][k]), m["vt"],
                           m["entries"][k], True)
        v = r.choice(LITERALS) if r.random() < 0.8 else r.randrange(0, 2**63)
        if r.random() < 0.2 and v > 0:
            return Int("-%d" % v, I64, -v)
        return Int("%d" % v, I64, v, True, lit=True)

    def cast(self, e, t):
        if t[0] > e.t[0] and t[1] != e.t[1] and e.v != wrap(e.v, (e.t[0], not e.t[1])):
            # A widening cast that changes the sign of a value with its
            # top bit set: 0.17 extends by the target's sign, 0.26 by the
            # source's (KNOWN.md K3); widen in the source's sign first.
            w = (64, e.t[1])
            e = Int("(%s)%s" % (tname(w), e.paren()), w, e.v, True)
        return Int("(%s)%s" % (tname(t), e.paren()), t, wrap(e.v, t), True)

    def iexpr(self, depth=0):
        r = self.r
        if depth >= 3 or r.random() < 0.25:
            e = self.leaf()
            if r.random() < 0.35:
                e = self.cast(e, r.choice(INT_TYPES))
            return e
        c = r.random()
        if c < 0.15:
            return self.cast(self.iexpr(depth + 1), r.choice(INT_TYPES))
        if c < 0.22:
            return self.unary(self.iexpr(depth + 1))
        if c < 0.30:
            cond = self.cexpr(depth + 1)
            a = self.iexpr(depth + 1)
            b = self.iexpr(depth + 1)
            if b.t != a.t or not a.sure or not b.sure:
                a = self.cast(a, a.t)
                b = self.cast(b, a.t)
            v = a.v if cond[1] else b.v
            return Int("%s ? %s : %s" % (cond[0], a.paren(), b.paren()),
                       a.t, v)
        for _ in range(8):
            e = self.binop(self.iexpr(depth + 1), self.iexpr(depth + 1))
            if e:
                return e
        return self.leaf()

    def unary(self, e):
        if e.t[0] != 64:
            # 0.17 keeps a narrow operand's type and prints -(int16)5 as
            # 65531; 0.26's result is 64-bit (KNOWN.md K2)
            w = (64, e.t[1])
            e = Int("(%s)%s" % (tname(w), e.paren()), w, e.v, True, e.sure)
        if self.r.random() < 0.5 and e.t[1] and e.v != -2**(e.t[0] - 1):
            # 0.17 keeps the operand's type; a negation that does not fit
            # it would wrap there and not in 0.26's 64-bit result.
            return Int("-" + e.paren(), e.t, -e.v, sure=e.sure)
        if (e.t[1] or e.t[0] == 64) and (e.sure or e.v < 0):
            # ~ of a narrow unsigned is 64-bit in 0.26 (KNOWN.md K2)
            return Int("~" + e.paren(), e.t, wrap(~e.v, e.t), sure=e.sure)
        return e

    def binop(self, a, b):
        """a OP b, or None when this pair and operator would leave the
        ground 0.17 and 0.26 share."""
        r = self.r
        op = r.choice(["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"])
        signed = a.t[1] and b.t[1]
        if op in ("<<", ">>"):
            signed = a.t[1]
            # the shift amount as the right operand of a small range
            if not (0 <= b.v < 64):
                n = r.randrange(0, 64)
                b = Int("%d" % n, I64, n, True, lit=True)
        elif a.t[1] != b.t[1] and (a.v < 0 or b.v < 0):
            return None   # mixed signs: 0.26 leaves it undefined
        rt = (64, signed)
        # the sign 0.26 gives the result, beside 0.17's
        if a.lit and b.lit:
            sure = False   # 0.26 folds literals into a sign-flexible one
        else:
            sa, sb = a.t[1], b.t[1]
            if a.lit:
                sa = sb
            elif b.lit:
                sb = sa
            s26 = sa or sb or op == "-"
            sure = a.sure and b.sure and s26 == signed
        av, bv = a.v, b.v
        if op == "+":
            v = av + bv
        elif op == "-":
            v = av - bv
            # 0.26 types every difference as signed
            if not rt[1] and v >= 2**63:
                return None
        elif op == "*":
            v = av * bv
        elif op in ("/", "%"):
            # operands of either sign in 0.26 must be non-negative as
            # both signed and unsigned 64-bit numbers
            if not (0 <= av < 2**63 and 0 < bv < 2**63):
                return None
            v = av // bv if op == "/" else av % bv
        elif op == "&":
            v = av & bv
        elif op == "|":
            v = av | bv
        elif op == "^":
            v = av ^ bv
        elif op == "<<":
            v = av << bv
        else:
            if not 0 <= av < 2**63:
                return None
            v = av >> bv
        if not fits(v, rt):
            if op in ("&", "|", "^"):
                v = wrap(v, rt)
            else:
                return None    # no overflow of 64 bits
        if not sure and not 0 <= v < 2**63:
            return None    # its sign would show
        return Int("%s %s %s" % (a.paren(), op, b.paren()), rt, v,
                   sure=sure)

    # -- strings and conditions ------------------------------------------
    def sexpr(self, depth=0, plain=False):
        r = self.r
        c = r.random()
        names = sorted(n for n, (_, p) in self.svars.items()
                       if p or not plain)
        if c < 0.3 and names:
            n = r.choice(names)
            return Str(n, *self.svars[n])
        if c < 0.4 and depth < 2 and not plain:
            cond = self.cexpr(depth + 1)
            a, b = self.sexpr(depth + 1), self.sexpr(depth + 1)
            return Str("(%s ? %s : %s)" % (cond[0], a.text, b.text),
                       a.v if cond[1] else b.v, False)
        w = r.choice(WORDS[1:])
        return Str(qstr(w), w)

    def cexpr(self, depth=0):
        """A condition: (text, truth).  Comparisons are bool in 0.26 and
        1/0 in 0.17, so they appear only where both read them alike."""
        r = self.r
        c = r.random()
        if c < 0.45 or depth >= 3:
            for _ in range(8):
                a, b = self.iexpr(depth + 1), self.iexpr(depth + 1)
                if r.random() < 0.4:
                    # the boundary: equal values, or one apart
                    v = a.v + r.choice([0, 0, -1, 1])
                    if 0 <= v < 2**63:
                        b = Int("%d" % v, I64, v, True, lit=True)
                    elif -2**63 < v < 0:
                        b = Int("-%d" % -v, I64, v)
                # 0.17 compares signed when both sides are, 0.26 when
                # either is (KNOWN.md K5): only where both agree
                if (a.v < 0 or a.v >= 2**63) != (b.v < 0 or b.v >= 2**63):
                    continue
                op = r.choice(["==", "!=", "<", "<=", ">", ">="])
                # the 64-bit patterns compared: with their top bits
                # alike, signed and unsigned order agree ((int16)-32 is
                # (uint64)-32 widened)
                pa, pb = a.v % 2**64, b.v % 2**64
                truth = {"==": pa == pb, "!=": pa != pb, "<": pa < pb,
                         "<=": pa <= pb, ">": pa > pb, ">=": pa >= pb}[op]
                return ("%s %s %s" % (a.paren(), op, b.paren()), truth)
        if c < 0.6:
            a, b = self.sexpr(depth + 1), self.sexpr(depth + 1)
            op = r.choice(["==", "!="])
            return ("%s %s %s" % (a.text, op, b.text),
                    (a.v == b.v) == (op == "=="))
        if c < 0.68:
            a, b = self.sexpr(depth + 1), self.sexpr(depth + 1)
            n = r.randrange(1, 6)
            return ("strncmp(%s, %s, %d) == 0" % (a.text, b.text, n),
                    a.v[:n] == b.v[:n])
        if c < 0.76:
            # (KNOWN.md K11)
            a = self.sexpr(depth + 1, plain=True)
            w = r.choice(WORDS[1:])
            return ("strcontains(%s, %s)" % (a.text, qstr(w)), w in a.v)
        if c < 0.84:
            t, v = self.cexpr(depth + 1)
            return ("!(%s)" % t, not v)
        if c < 0.92:
            a, b = self.cexpr(depth + 1), self.cexpr(depth + 1)
            op = r.choice(["&&", "||"])
            return ("(%s) %s (%s)" % (a[0], op, b[0]),
                    (a[1] and b[1]) if op == "&&" else (a[1] or b[1]))
        e = self.iexpr(depth + 1)
        return (e.paren(), e.v != 0)

    # -- statements --------------------------------------------------------
    def emit(self, indent, s):
        self.lines.append("  " * indent + s)

    def new_var(self, pre):
        self.nvar += 1
        return "$%s%s%d" % (self.p, pre, self.nvar)

    def int_spec(self, e):
        r = self.r
        conv = r.choice(["d", "u", "x", "X", "ld", "lu", "lx", "lld",
                         "llu", "llx"])
        flags = r.choice(["", "", "", "-", "0"])
        width = r.choice(["", "", "4", "12", "21"])
        # 0.26 puts the fill before a sign (KNOWN.md N8); %d prints the
        # low 32 bits
        if flags == "0" and (not 0 <= e.v < 2**31 or not width):
            flags = ""
        if flags == "-" and not width:
            flags = ""
        return "%" + flags + width + conv

    def s_printf(self, ind):
        r = self.r
        parts, args = [], []
        for _ in range(r.randrange(1, 5)):
            parts.append(r.choice(["", "", " ", "v=", " | ", "[", "] ",
                                   "a b ", "-"]))
            c = r.random()
            if c < 0.55:
                e = self.iexpr()
                parts.append(self.int_spec(e))
                args.append(e.text)
            elif c < 0.7:
                # 0.17's %d of a comparison prints 1 or 0, as 0.26's does
                t, _ = self.cexpr()
                parts.append("%d")
                args.append(t)
            elif c < 0.78:
                e = self.iexpr()
                if not 32 <= e.v < 127:
                    e = Int("%d" % r.randrange(33, 127), I64, 0, True)
                parts.append("%c")
                args.append(e.text)
            else:
                s = self.sexpr()
                w = r.choice(["", "", "8", "-8", "15"])
                parts.append("%" + w + "s")
                args.append(s.text)
        fmt = "".join(parts) + "\\n"
        self.emit(ind, 'printf("%s", %s);' % (fmt, ", ".join(args)))

    def s_print(self, ind):
        r = self.r
        c = r.random()
        if c < 0.5:
            e = self.iexpr()
            if e.text.startswith("@"):
                # 0.17 refuses print(@m[k]) (KNOWN.md K7)
                e = self.cast(e, e.t)
            self.emit(ind, "print(%s);" % e.text)
        elif c < 0.7 and self.tvars:
            self.emit(ind, "print(%s);" % r.choice(sorted(self.tvars)))
        elif [n for n, m in self.maps.items() if m["entries"]]:
            # (an empty map prints differently: KNOWN.md N7)
            self.emit(ind, "print(%s);" % r.choice(
                sorted(n for n, m in self.maps.items() if m["entries"])))
        else:
            self.emit(ind, "print(%s);" % self.iexpr().text)

    def s_var(self, ind):
        r = self.r
        c = r.random()
        if ind > 1 and not self.ivars:
            # 0.26's variables are block-scoped: a variable first written
            # in a branch is not one after it, so branches only reassign
            return self.s_printf(ind)
        if c < 0.5 or ind > 1:
            if self.ivars and (r.random() < 0.4 or ind > 1):
                n = r.choice(sorted(self.ivars))
                t, _, sure = self.ivars[n]
                e = self.cast(self.iexpr(), t)
                if not sure and not 0 <= e.v < 2**63:
                    # 0.26 typed the variable by its first value
                    v = e.v % 2**63
                    e = self.cast(Int("%d" % v, I64, v, True, lit=True), t)
                self.emit(ind, "%s = %s;" % (n, e.text))
                if self.live:
                    self.ivars[n][1] = e.v
                return
            e = self.iexpr()
            if r.random() < 0.5:
                e = self.cast(e, r.choice(INT_TYPES))
            elif e.text.startswith("@"):
                # 0.17 types a variable that a map read starts as 64-bit
                # and stores a narrower value into it without extending
                # it (KNOWN.md K15): the read is cast to its own type
                e = self.cast(e, e.t)
            n = self.new_var("v")
            self.emit(ind, "%s = %s;" % (n, e.text))
            self.ivars[n] = [e.t, e.v, e.sure]
        elif c < 0.75:
            s = self.sexpr()
            n = self.new_var("s")
            self.emit(ind, "%s = %s;" % (n, s.text))
            self.svars[n] = (s.v, s.plain)
        else:
            els = []
            for _ in range(r.randrange(2, 4)):
                els.append(self.iexpr() if r.random() < 0.6
                           else self.sexpr())
            n = self.new_var("t")
            self.emit(ind, "%s = (%s);" % (n, ", ".join(e.text for e in els)))
            self.tvars[n] = els

    AGGS = ["int", "int", "str", "count", "sum", "min", "max", "avg",
            "stats", "hist", "lhist"]

    def new_map(self):
        r = self.r
        self.nmap += 1
        name = "@%sm%d" % (self.p, self.nmap)
        kind = r.choice(self.AGGS)
        key = r.choice(["none", "int", "int", "str", "tuple"])
        m = {"kind": kind, "key": key, "kt": r.choice(INT_TYPES),
             "vt": r.choice(INT_TYPES), "entries": {}, "ktext": {},
             "lh": None}
        if kind == "lhist":
            step = r.choice([1, 2, 5, 10, 100])
            lo = r.choice([0, 0, 10, 100])
            m["lh"] = (lo, lo + step * r.randrange(1, 12), step)
        self.maps[name] = m
        return name

    def key_text(self, m):
        """(text, model key) of a key for map m."""
        self.in_key = True
        try:
            return self.key_text1(m)
        finally:
            self.in_key = False

    def key_text1(self, m):
        r = self.r
        if m["key"] == "none":
            return "", None
        if m["key"] == "int":
            # reuse a key now and then, so that values accumulate
            if m["entries"] and r.random() < 0.4:
                k = r.choice(sorted(m["entries"], key=repr))
                return m["ktext"][k], k
            e = self.key_int(m, 1)
            return e.text, e.v
        w = r.choice(WORDS[1:8])
        if m["key"] == "str":
            return qstr(w), w
        e = self.key_int(m, 2)
        return "%s, %s" % (e.text, qstr(w)), (e.v, w)

    def key_int(self, m, depth):
        """An integer key of m's type.  0.17 prints every integer key as a
        signed number (KNOWN.md K6): an unsigned one has its top bit
        clear; and it sorts keys as unsigned 64-bit numbers, 0.26 as
        signed ones (K12): a map printed in key order has no negative
        keys."""
        t = m["kt"]
        e = self.cast(self.iexpr(depth), t)
        if e.v >= 2**(t[0] - 1) or (e.v < 0 and m["kind"] == "str"):
            v = e.v % 2**(t[0] - 1)
            e = self.cast(Int("%d" % v, I64, v, True, lit=True), t)
        return e

    def s_map(self, ind, name=None):
        r = self.r
        if name is None:
            if self.maps and r.random() < 0.6:
                name = r.choice(sorted(self.maps))
            else:
                name = self.new_map()
        m = self.maps[name]
        kt, k = self.key_text(m)
        lhs = name + ("[%s]" % kt if kt else "")
        kind = m["kind"]
        e = self.cast(self.iexpr(1), m["vt"])
        if kind == "int":
            rhs, val = e.text, e.v
        elif kind == "str":
            s = self.sexpr()
            rhs, val = s.text, s.v
        elif kind == "count":
            rhs, val = "count()", None
        elif kind in ("sum", "min", "max", "avg", "stats"):
            # 0.17's min() keeps 0xffffffff - v and compares it signed
            # with 0, its max() compares v with 0: other values are lost
            # (KNOWN.md K9)
            # and prints avg() and stats() signed, 0.26 in the argument's
            # sign (K14): their totals stay under 2^63 (< 64 updates)
            if (kind == "min" and not 0 <= e.v < 2**32 - 1) or \
                    (kind == "max" and not 0 <= e.v < 2**63) or \
                    (kind in ("avg", "stats") and
                     not -2**57 <= e.v < 2**57):
                v = r.randrange(0, 128)
                e = self.cast(Int("%d" % v, I64, v, True, lit=True), m["vt"])
            rhs, val = "%s(%s)" % (kind, e.text), None
        elif kind == "hist":
            # 0.17 put every value of 2^31 and more in one bucket
            v = e.v if -2**31 < e.v < 2**31 else r.randrange(0, 5000)
            rhs, val = "hist(%d)" % v if v != e.v else "hist(%s)" % e.text, None
        else:
            lo, hi, step = m["lh"]
            v = e.v if -2**31 < e.v < 2**31 else r.randrange(0, hi + 20)
            arg = e.text if v == e.v else "%d" % v
            rhs, val = "lhist(%s, %d, %d, %d)" % (arg, lo, hi, step), None
        self.emit(ind, "%s = %s;" % (lhs, rhs))
        if self.live:
            m["entries"][k] = val
            m["ktext"][k] = kt

    def s_delete(self, ind):
        # 0.17 deletes only half of an avg or stats entry and none of a
        # histogram's (KNOWN.md K4)
        cands = [n for n, m in sorted(self.maps.items())
                 if m["key"] != "none" and len(m["entries"]) >= 2 and
                 m["kind"] not in ("avg", "stats", "hist", "lhist")]
        if not cands or not self.live:
            return self.s_printf(ind)
        n = self.r.choice(cands)
        m = self.maps[n]
        k = self.r.choice(sorted(m["entries"], key=repr))
        self.emit(ind, "delete(%s[%s]);" % (n, m["ktext"][k]))
        del m["entries"][k]

    def s_if(self, ind):
        t, truth = self.cexpr()
        was = self.live
        self.emit(ind, "if (%s) {" % t)
        self.live = was and truth
        for _ in range(self.r.randrange(1, 4)):
            self.stmt(ind + 1)
        if self.r.random() < 0.5:
            self.emit(ind, "} else {")
            self.live = was and not truth
            for _ in range(self.r.randrange(1, 4)):
                self.stmt(ind + 1)
        self.emit(ind, "}")
        self.live = was

    def stmt(self, ind):
        r = self.r
        c = r.random()
        if c < 0.3:
            self.s_printf(ind)
        elif c < 0.4:
            self.s_print(ind)
        elif c < 0.58:
            self.s_var(ind)
        elif c < 0.85:
            if ind > 1:
                # a map's first write is unconditional (0.17 and 0.26 print
                # a map that was never written differently)
                live = [n for n in sorted(self.maps) if self.maps[n]["entries"]]
                if not live:
                    return self.s_printf(ind)
                self.s_map(ind, r.choice(live))
            else:
                self.s_map(ind)
        elif c < 0.9:
            self.s_delete(ind)
        elif ind < 3:
            self.s_if(ind)
        else:
            self.s_printf(ind)

    def program(self):
        for _ in range(self.r.randrange(4, 14)):
            self.stmt(1)
        return self.lines


def generate(seed):
    """(statement lines, {map name: kind}) of seed's program."""
    g = Gen(seed)
    lines = g.program()
    return lines, {n: m["kind"] for n, m in g.maps.items()}


def whole(seed):
    lines, _ = generate(seed)
    return "BEGIN {\n" + "\n".join(lines) + "\n  exit();\n}\n"


if __name__ == "__main__":
    sys.stdout.write(whole(int(sys.argv[1])))
