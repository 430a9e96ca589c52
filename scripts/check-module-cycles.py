#!/usr/bin/env python3
"""Checks that the modules of each crate import each other one way only (no circles).

For each crate under crates/*/src, every .rs file reachable from lib.rs or main.rs through
`mod` declarations is a node; file A has an edge to file B when A uses a name that B
defines:

- `use` declarations (`use crate::x::Y`, `use super::Y`, `use self::x::Y`, `use x::Y` for a
  child module x, groups, renames and globs), and
- paths in code (`crate::x::y()`, `super::Y`, `self::x::Y`, and `x::y()` where x is a child
  module or a module imported by name).

A name is followed through re-exports to the file that defines it: a file that uses
`crate::Name`, where lib.rs has `pub use store::Name`, depends on store's file, not on
lib.rs. A glob import (`use super::*`) depends on the files that define the names of the
glob which the importing file mentions. Not edges:

- a file's `mod` declarations of its children (declaring a child is not using it);
- a `pub use` (or `pub(crate) use`, ...) of a name the file does not mention otherwise:
  a re-export only, so that mod.rs and lib.rs can re-export their children, and a moved
  item can keep its public path;
- `#[cfg(test)]` modules (and `#[cfg(all(test, ...))]`): tests may use any module.

So a parent that calls into a child (`child::run()`) depends on it, and a child that
uses a name defined in its parent's own file (`super::Name`) depends on the parent: the
two together are a circle. Methods are not seen (`x.f()` names no module): an `impl T`
block in another file than `T`'s depends on `T`'s file, and nothing depends on it.

Inline modules (`mod tests { ... }`) belong to their file; comments and literals are
ignored. The check is textual (no macro expansion, no type inference), which is enough
for the crate's own paths: names that reach no definition of the crate (std, other
crates, macros) make no edge.

Exits 1 and prints every circle (strongly connected component of more than one file, with
the edges inside it and the names on each), or exits 0 with a one-line summary.

    scripts/check-module-cycles.py [REPO]                # REPO: the script's repository
    scripts/check-module-cycles.py --edges CRATE [REPO]  # also every edge of one crate
"""

import os
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


# --------------------------------------------------------------------------- lexing


def strip(text):
    """The text with comments, string, byte-string and char literals blanked to spaces
    (newlines kept), so that nothing inside them looks like code."""
    out = []
    i, n = 0, len(text)

    def blank(s):
        return "".join("\n" if c == "\n" else " " for c in s)

    def word_start(i):
        return i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")

    char_re = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F_]+\}|.)|[^\\'\n])'")
    raw_re = re.compile(r'b?r(#*)"')
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
        elif c in "rb" and word_start(i) and raw_re.match(text, i):
            m = raw_re.match(text, i)
            end = '"' + m.group(1)
            j = text.find(end, m.end())
            j = n if j < 0 else j + len(end)
            out.append(blank(text[i:j]))
            i = j
        elif c == '"' or (text.startswith('b"', i) and word_start(i)):
            j = i + (2 if c == "b" else 1)
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(blank(text[i:j]))
            i = j
        elif c == "'" or (text.startswith("b'", i) and word_start(i)):
            k = i + 1 if c == "b" else i
            m = char_re.match(text, k)
            if m:
                out.append(blank(text[i : m.end()]))
                i = m.end()
            else:  # a lifetime or label
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def use_tree(body):
    """The imports of one `use` body: a list of (path segments, alias, glob)."""
    toks = re.findall(r"::|\{|\}|,|\*|\$?" + IDENT, body)
    pos = 0

    def peek():
        return toks[pos] if pos < len(toks) else None

    def parse(prefix):
        nonlocal pos
        result = []
        segs = list(prefix)
        while True:
            t = peek()
            if t is None:
                return result
            if t == "{":
                pos += 1
                while peek() not in (None, "}"):
                    result += parse(segs)
                    if peek() == ",":
                        pos += 1
                pos += 1
                return result
            if t == "*":
                pos += 1
                result.append((segs, None, True))
                return result
            if t == "::":
                pos += 1
                continue
            pos += 1
            if t == "self" and segs and peek() != "::":
                alias = segs[-1]
                if peek() == "as":
                    pos += 1
                    alias = toks[pos]
                    pos += 1
                result.append((segs, alias, False))
                return result
            segs = segs + [t]
            if peek() == "as":
                pos += 1
                alias = toks[pos] if pos < len(toks) else "_"
                pos += 1
                result.append((segs, alias, False))
                return result
            if peek() != "::":
                result.append((segs, segs[-1], False))
                return result

    out = []
    while pos < len(toks):
        before = pos
        out += parse([])
        if peek() == ",":
            pos += 1
        if pos == before:
            pos += 1
    return out


# --------------------------------------------------------------------------- modules


class Module:
    def __init__(self, path, file, parent):
        self.path = path  # tuple of names from the crate root
        self.file = file  # the file holding it
        self.parent = parent
        self.children = {}  # name -> Module
        self.defs = set()  # item names defined here
        self.imports = {}  # alias -> list of Use
        self.globs = []  # list of Use
        self.uses = []  # every Use declared here
        self.paths = []  # segments of each path in code
        self.dir = None  # the directory of its children's files
        self.test = False  # `#[cfg(test)]`: its uses make no edges


class Use:
    def __init__(self, module, segs, alias, glob, public):
        self.module, self.segs, self.alias, self.glob = module, segs, alias, glob
        self.public = public


TOKEN = re.compile(
    r"(?P<open>\{)|(?P<close>\})"
    r"|(?P<mod>\bmod\s+(?P<modname>" + IDENT + r")\s*(?P<modend>[;{]))"
    r"|(?P<use>(?P<vis>\bpub\b(?:\s*\([^)]*\))?\s*)?\buse\s+(?P<usebody>[^;]*);)"
    r"|(?P<item>\b(?:fn|struct|enum|trait|type|static|union"
    r"|const(?!\s+(?:fn|unsafe|async|extern)\b))\s+(?:mut\s+)?(?P<itemname>" + IDENT + r"))"
    r"|(?P<macro>\bmacro_rules!\s*(?P<macroname>" + IDENT + r"))"
    r"|(?P<path>(?<![\w:$])\$?" + IDENT + r"(?:\s*::\s*(?:" + IDENT + r"|<))+)"
    r"|(?P<ident>" + IDENT + r")"
)


# `#[cfg(test)]` or `#[cfg(all(test, ...))]` (then any other attributes and a visibility)
# right before a `mod`.
CFG_TEST = re.compile(
    r"#\[cfg\((?:test|all\((?:[^()]|\([^()]*\))*?\btest\b(?:[^()]|\([^()]*\))*\))\)\]"
    r"\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\s*\([^)]*\))?\s*)?\Z"
)


class Crate:
    def __init__(self, name, src):
        self.name, self.src = name, src
        self.roots = []
        self.modules = []
        self.file_idents = {}  # file -> identifiers outside `use` declarations and tests
        self.file_root = {}  # file -> its outermost module

    def load(self):
        for root in ("lib.rs", "main.rs"):
            f = os.path.join(self.src, root)
            if os.path.exists(f):
                m = Module((), f, None)
                m.dir = self.src
                self.roots.append(m)
                self.parse_file(m)

    def parse_file(self, root):
        self.modules.append(root)
        self.file_root[root.file] = root
        with open(root.file, encoding="utf-8") as fh:
            code = strip(fh.read())
        idents = set()
        self.file_idents[root.file] = idents
        # stack of (module, brace depth of its body)
        stack = [(root, 0)]
        depth = 0
        for m in TOKEN.finditer(code):
            cur, body_depth = stack[-1]
            if m.group("open"):
                depth += 1
            elif m.group("close"):
                if depth == body_depth and len(stack) > 1:
                    stack.pop()
                depth -= 1
            elif m.group("mod"):
                name = m.group("modname")
                child = Module(cur.path + (name,), cur.file, cur)
                child.dir = os.path.join(cur.dir, name)
                child.test = cur.test or bool(CFG_TEST.search(code, 0, m.start()))
                cur.children[name] = child
                if depth == body_depth:
                    cur.defs.add(name)
                if m.group("modend") == "{":
                    depth += 1
                    self.modules.append(child)
                    stack.append((child, depth))
                else:
                    f1 = os.path.join(cur.dir, name + ".rs")
                    f2 = os.path.join(cur.dir, name, "mod.rs")
                    if os.path.exists(f1):
                        child.file = f1
                        child.dir = os.path.join(cur.dir, name)
                    elif os.path.exists(f2):
                        child.file = f2
                        child.dir = os.path.join(cur.dir, name)
                    else:
                        continue
                    self.parse_file(child)
            elif m.group("use"):
                public = bool(m.group("vis"))
                for segs, alias, glob in use_tree(m.group("usebody")):
                    u = Use(cur, segs, alias, glob, public)
                    cur.uses.append(u)
                    if glob:
                        cur.globs.append(u)
                    elif alias and alias != "_":
                        cur.imports.setdefault(alias, []).append(u)
            elif m.group("item"):
                if depth == body_depth:
                    cur.defs.add(m.group("itemname"))
            elif m.group("macro"):
                if depth == body_depth:
                    cur.defs.add(m.group("macroname"))
            elif m.group("path"):
                text = m.group("path")
                parts = re.split(r"\s*::\s*", text.rstrip("<").rstrip())
                segs = [s for s in parts if re.fullmatch(r"\$?" + IDENT, s)]
                cur.paths.append(segs)
                if not cur.test:
                    idents.update(s.lstrip("$") for s in segs)
            elif not cur.test:
                idents.add(m.group("ident"))

    # ------------------------------------------------------------------ resolution

    def start(self, module, first):
        """The module a path's first segment names, from `module`, or None."""
        if first in ("crate", "$crate"):
            m = module
            while m.parent is not None:
                m = m.parent
            return m
        if first == "super":
            return module.parent
        if first == "self":
            return module
        return None

    def walk(self, module, segs, seen):
        """Follows segs from `module` through modules (children and imported modules);
        returns (module reached, index of the first segment that is not a module)."""
        i = 0
        cur = module
        while i < len(segs):
            s = segs[i]
            if i == 0:
                nxt = self.start(cur, s)
                if nxt is None:
                    nxt = self.module_named(cur, s, seen)
                    if nxt is None:
                        return None, 0
            elif s == "super" and cur.parent is not None:
                nxt = cur.parent
            elif s == "self":
                nxt = cur
            else:
                nxt = self.module_named(cur, s, seen)
                if nxt is None:
                    break
            cur = nxt
            i += 1
        return cur, i

    def module_named(self, module, name, seen):
        """The module that `name` means inside `module`: a child, or an imported module."""
        if name in module.children:
            return module.children[name]
        for u in module.imports.get(name, []):
            key = ("mod", id(u))
            if key in seen:
                continue
            target, i = self.walk(u.module, u.segs, seen | {key})
            if target is not None and i == len(u.segs):
                return target
        return None

    def definers(self, module, name, seen=frozenset()):
        """The files defining `name` as seen from `module` (following imports), with the
        imports followed; an empty list when the name is not the crate's."""
        key = (id(module), name)
        if key in seen:
            return []
        seen = seen | {key}
        if name in module.defs:
            return [module.file]
        out = []
        for u in module.imports.get(name, []):
            out += self.use_targets(u, seen)
        if out:
            return out
        for u in module.globs:
            target, i = self.walk(u.module, u.segs, seen)
            if target is not None and i == len(u.segs):
                out += self.definers(target, name, seen)
        return out

    def use_targets(self, u, seen=frozenset()):
        """The files that one import (not a glob) reaches."""
        target, i = self.walk(u.module, u.segs, seen)
        if target is None:
            return []
        if i == len(u.segs):
            return [target.file]  # a module imported by name
        return self.definers(target, u.segs[i], seen)

    def path_targets(self, module, segs):
        """(file, name) pairs that a path in code reaches."""
        if not segs:
            return []
        first = self.start(module, segs[0]) or self.module_named(module, segs[0], frozenset())
        if first is None:
            return []
        target, i = self.walk(module, segs, frozenset())
        if target is None:
            return []
        if i == len(segs):
            return [(target.file, segs[-1])]
        return [(f, segs[i]) for f in self.definers(target, segs[i])]

    def edges(self):
        """{(from file, to file): set of names}."""
        edges = {}

        def add(a, b, name):
            if a != b:
                edges.setdefault((a, b), set()).add(name)

        for mod in self.modules:
            if mod.test:
                continue
            for u in mod.uses:
                if not u.segs:
                    continue
                if u.glob:
                    target, i = self.walk(mod, u.segs, frozenset())
                    if target is None or i != len(u.segs):
                        continue
                    names = self.file_idents[mod.file]
                    for name in sorted(names):
                        if name in target.children:
                            add(mod.file, target.children[name].file, name)
                            continue
                        for f in self.definers(target, name):
                            add(mod.file, f, name)
                    continue
                target, i = self.walk(mod, u.segs, frozenset())
                if target is None or i == len(u.segs):
                    continue  # not the crate's, or a module: its paths in code count
                if u.public and u.alias not in self.file_idents[mod.file]:
                    continue  # a re-export only: its users depend on the definer
                for f in self.use_targets(u):
                    add(mod.file, f, u.segs[i])
            for segs in mod.paths:
                for f, name in self.path_targets(mod, segs):
                    add(mod.file, f, name)
        return edges


# --------------------------------------------------------------------------- cycles


def sccs(nodes, succ):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for v0 in nodes:
        if v0 in index:
            continue
        work = [(v0, iter(sorted(succ.get(v0, ()))))]
        index[v0] = low[v0] = counter[0]
        counter[0] += 1
        stack.append(v0)
        on.add(v0)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(succ.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def main():
    args = sys.argv[1:]
    show = None
    if args[:1] == ["--edges"]:
        if len(args) < 2:
            print("usage: check-module-cycles.py --edges CRATE [REPO]", file=sys.stderr)
            return 2
        show, args = args[1], args[2:]
    repo = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    repo = os.path.abspath(repo)
    crates_dir = os.path.join(repo, "crates")
    found = []
    n_crates = n_files = n_edges = 0
    for name in sorted(os.listdir(crates_dir)):
        src = os.path.join(crates_dir, name, "src")
        if not os.path.isdir(src):
            continue
        crate = Crate(name, src)
        crate.load()
        if not crate.roots:
            continue
        n_crates += 1
        files = sorted(crate.file_root)
        n_files += len(files)
        edges = crate.edges()
        n_edges += len(edges)
        if show is not None and name == show:
            for (a, b), names in sorted(edges.items()):
                names = ", ".join(sorted(names))
                print(f"{os.path.relpath(a, repo)} -> {os.path.relpath(b, repo)}: {names}")
        succ = {}
        for a, b in edges:
            succ.setdefault(a, set()).add(b)
        for comp in sccs(files, succ):
            if len(comp) > 1:
                found.append((crate, comp, edges))

    def rel(f):
        return os.path.relpath(f, repo)

    if found:
        for crate, comp, edges in found:
            print(f"{crate.name}: a circle of {len(comp)} files:")
            members = set(comp)
            for (a, b), names in sorted(edges.items()):
                if a in members and b in members:
                    print(f"  {rel(a)} -> {rel(b)}: {', '.join(sorted(names))}")
        print(
            f"{len(found)} circle(s) of modules: each crate's modules must import one way only "
            "(CONTRIBUTING.md); --edges CRATE lists a crate's imports"
        )
        return 1
    print(
        f"module imports: no circles ({n_crates} crates, {n_files} files, "
        f"{n_edges} edges between files)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
