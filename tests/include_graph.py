#!/usr/bin/env python3
"""The include graph against README's layout table.

    include_graph.py ROOT    prints each violation, exits 1 if there is any

Rules (README.md, "Layout"):
  - every folder of src/ has a row, and a public header named after it;
  - a file of src/R includes its own room's headers by bare name, and of
    another room S only "S/S.h", and only when S is in R's "may use" cell;
  - cli/ includes only public headers of src/ (and its own by bare name);
  - the "may use" relation has no cycle;
  - every kernels/*.cl is named by exactly one room's public header.
tests/, bench/, fuzz/ and tools/ may include any header of src/.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
problems = []


def bad(msg):
    problems.append(msg)


readme = open(os.path.join(root, 'README.md'), encoding='utf-8').read()
may_use = {}
for line in readme.splitlines():
    m = re.match(r'\|\s*`src/([a-z_]+)/`\s*\|.*\|([^|]*)\|\s*$', line)
    if m:
        may_use[m.group(1)] = set(re.findall(r'`([a-z_]+)/`', m.group(2)))

src = os.path.join(root, 'src')
rooms = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
for r in rooms:
    if r not in may_use:
        bad(f'src/{r}/: no row in README.md\'s layout table')
    if not os.path.isfile(os.path.join(src, r, r + '.h')):
        bad(f'src/{r}/: no public header {r}.h')
for r in may_use:
    if r not in rooms:
        bad(f'README.md names src/{r}/, which does not exist')
    for s in may_use[r]:
        if s not in may_use:
            bad(f'README.md: src/{r}/ may use {s}/, which has no row')

# cycles in the rule table
state = {}


def visit(r, stack):
    state[r] = 1
    for s in sorted(may_use.get(r, ())):
        if state.get(s) == 1:
            bad('cycle in the layout table: ' + ' -> '.join(stack + [r, s]))
        elif s in may_use and not state.get(s):
            visit(s, stack + [r])
    state[r] = 2


for r in sorted(may_use):
    if not state.get(r):
        visit(r, [])

inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return inc.findall(f.read())


def code_files(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(('.c', '.h')))


for r in rooms:
    d = os.path.join(src, r)
    for path in code_files(d):
        rel = os.path.relpath(path, root)
        for name in includes(path):
            if '/' not in name:
                if not os.path.isfile(os.path.join(d, name)):
                    bad(f'{rel}: "{name}" is not a header of src/{r}/')
                continue
            s, _, h = name.partition('/')
            if s == r:
                bad(f'{rel}: includes its own room as "{name}" (write "{h}")')
            elif s not in rooms:
                bad(f'{rel}: "{name}" is not in src/')
            elif h != s + '.h':
                bad(f'{rel}: "{name}" is private to src/{s}/ (include "{s}/{s}.h")')
            elif s not in may_use.get(r, ()):
                bad(f'{rel}: src/{r}/ may not use {s}/ (README.md\'s layout table)')

cli = os.path.join(root, 'cli')
for path in code_files(cli):
    rel = os.path.relpath(path, root)
    for name in includes(path):
        if '/' not in name:
            if not os.path.isfile(os.path.join(cli, name)) and name != 'commands.h':
                bad(f'{rel}: "{name}" is not a header of cli/')
            continue
        s, _, h = name.partition('/')
        if s not in rooms or h != s + '.h':
            bad(f'{rel}: "{name}" is not a public header of src/')

kdir = os.path.join(root, 'kernels')
for k in sorted(os.listdir(kdir)):
    if not k.endswith('.cl'):
        continue
    named = [r for r in rooms if os.path.isfile(os.path.join(src, r, r + '.h'))
             and f'kernels/{k}' in open(os.path.join(src, r, r + '.h'), encoding='utf-8').read()]
    if len(named) != 1:
        bad(f'kernels/{k}: named by {len(named)} public headers ({", ".join(named) or "none"}), not one')

for p in problems:
    print(p)
print(f'include graph: {len(rooms)} rooms, {len(problems)} problems')
sys.exit(1 if problems else 0)
