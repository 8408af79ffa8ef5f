#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check that the YNL spec, the uapi header and the module's policies agree.

usage: check_spec.py REPO YNL_DIR SCHEMA_DIR

YNL_DIR holds the kernel's ynl-gen-c.py and its lib/, SCHEMA_DIR the
kernel's Documentation/netlink/*.yaml. The header and the policies are kept
by hand (the generated ops need split ops, 6.2, and 5.10 must build); this
is what keeps them honest:
 1. the spec validates against genetlink.yaml;
 2. every public name ynl-gen-c.py puts in the uapi header is in ours, with
    the same value, and ours has no public name the spec lacks (besides
    UNSPEC values and the names of the first version);
 3. every policy table it generates reads the same in kmod/nl_policy.c, and
    every range the same values;
 4. each command has the same doit/dumpit, policy, maxattr and admin flag
    in kmod/nl_family.c (handlers in netlink.c, nl_*.c); a request the
    spec gives no attributes is checked against the reject-all policy.
Prints "ok N - ..." / "not ok N - ..." lines and exits 1 on any mismatch.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import jsonschema
import yaml

SPEC = 'Documentation/netlink/specs/fasttrack.yaml'
LEGACY_NAMES = {'FASTTRACK_GENL_NAME', 'FASTTRACK_GENL_VERSION'}
REJECT_ALL = 'ft_nl_reject_all_policy'

results = []


def check(ok, what, detail=''):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} - {what}")
    if not ok and detail:
        for line in detail.rstrip().splitlines():
            print(f'#   {line}')


def norm(text):
    return ' '.join(text.split())


def generate(ynl_dir, tree, mode):
    out = os.path.join(tree, 'out-' + mode.replace(' ', '').replace('-', ''))
    spec = os.path.join(tree, SPEC)
    subprocess.run([sys.executable, os.path.join(ynl_dir, 'ynl-gen-c.py'),
                    '--spec', spec, '--mode'] + mode.split() + ['-o', out],
                   check=True, cwd=ynl_dir, timeout=120)
    with open(out) as f:
        return f.read()


def public_names(header):
    """Enumerators and #defines of a header, without private (__) ones."""
    names = set(re.findall(r'^#define\s+(FASTTRACK_\w+)', header, re.M))
    for body in re.findall(r'\benum\b[^{;]*\{(.*?)\}', header, re.S):
        body = re.sub(r'/\*.*?\*/', '', body, flags=re.S)
        names.update(re.findall(r'^\s*(FASTTRACK_\w+)', body, re.M))
    return names


def values(cc, tmp, include_dir, names):
    """NAME=value lines for @names, compiled against @include_dir."""
    src = os.path.join(tmp, 'values.c')
    exe = os.path.join(tmp, 'values')
    with open(src, 'w') as f:
        f.write('#include <stdio.h>\n#include <stdint.h>\n'
                '#include <linux/fasttrack.h>\n'
                '#define P(x) _Generic((x), char *: printf("%s=\\"%s\\"\\n", #x, '
                '(const char *)(uintptr_t)(x)), default: printf("%s=%lld\\n", #x, '
                '(long long)(uintptr_t)(x)))\nint main(void)\n{\n')
        for n in sorted(names):
            f.write(f'\tP({n});\n')
        f.write('\treturn 0;\n}\n')
    subprocess.run([cc, '-w', '-I', include_dir, '-o', exe, src], check=True)
    return subprocess.run([exe], check=True, capture_output=True,
                          text=True).stdout


def check_uapi(repo, generated, tmp):
    ours_path = os.path.join(repo, 'uapi/linux/fasttrack.h')
    with open(ours_path) as f:
        ours = f.read()
    gen_names = public_names(generated)
    our_names = public_names(ours)
    missing = gen_names - our_names
    check(not missing, 'uapi: every name of the spec is in the header',
          ' '.join(sorted(missing)))
    extra = {n for n in our_names - gen_names
             if not n.endswith('_UNSPEC') and n not in LEGACY_NAMES}
    check(not extra, 'uapi: the header has no name the spec lacks',
          ' '.join(sorted(extra)))

    gen_dir = os.path.join(tmp, 'gen-include')
    os.makedirs(os.path.join(gen_dir, 'linux'), exist_ok=True)
    with open(os.path.join(gen_dir, 'linux/fasttrack.h'), 'w') as f:
        f.write(generated)
    common = sorted(gen_names & our_names)
    cc = os.environ.get('CC', 'cc')
    want = values(cc, tmp, gen_dir, common)
    got = values(cc, tmp, os.path.join(repo, 'uapi'), common)
    diff = [f'spec {w} / header {g}' for w, g in
            zip(want.splitlines(), got.splitlines()) if w != g]
    check(not diff, f'uapi: {len(common)} names have the values of the spec',
          '\n'.join(diff))


POLICY = r'^(?:static )?const struct nla_policy (\w+\[[^\]]+\])'
RANGE = r'^(?:static )?(?:const )?struct netlink_range_validation (\w+)(?: __ro_after_init)?'


def definitions(text, head):
    """{name: normalized initializer} of the C definitions @head matches."""
    return {m.group(1): norm(m.group(2)) for m in re.finditer(
        head + r'\s*=\s*\{(.*?)\n\};', text, re.S | re.M)}


def check_policies(repo, generated):
    path = os.path.join(repo, 'kmod/nl_policy.c')
    check(os.path.exists(path), 'kmod/nl_policy.c exists')
    ours = open(path).read() if os.path.exists(path) else ''
    for kind, head in (('policy', POLICY), ('range', RANGE)):
        gen, our = definitions(generated, head), definitions(ours, head)
        for name, body in gen.items():
            check(our.get(name) == body, f'{kind} {name} as generated',
                  f'generated: {body}\nours:      {our.get(name)}')
    check(bool(definitions(generated, POLICY)), 'the generator wrote policies')


def ops(text, table):
    """[{field: value}] of the entries of the ops array @table."""
    m = re.search(r'\b' + table + r'\[\]\s*=\s*\{(.*?)\n\};', text, re.S)
    if not m:
        return []
    entries = []
    for body in re.findall(r'\{(.*?)\}', m.group(1), re.S):
        body = re.sub(r'/\*.*?\*/', '', body, flags=re.S)
        entries.append(dict((k, norm(v)) for k, v in
                            re.findall(r'\.(\w+)\s*=\s*([^,]+),', body)))
    return entries


def function_body(text, name):
    m = re.search(r'^(?:static )?int ' + name + r'\(.*?\n\{(.*?)\n\}', text,
                  re.S | re.M)
    return m.group(1) if m else ''


def check_ops(repo, generated):
    ours_text = ''
    for name in sorted(glob.glob(os.path.join(repo, 'kmod', 'nl*.c')) +
                       [os.path.join(repo, 'kmod', 'netlink.c')]):
        with open(name) as f:
            ours_text += f.read()
    ours = {}
    for e in ops(ours_text, 'ft_genl_ops'):
        ours[e.get('cmd')] = e
    gen = ops(generated, 'fasttrack_nl_ops')
    check(bool(gen) and bool(ours), 'both ops tables were found')
    gen_cmds = {e['cmd'] for e in gen}
    check(gen_cmds == set(ours), 'the same commands',
          f'spec: {sorted(gen_cmds)}\nours: {sorted(ours)}')
    for e in gen:
        cmd = e['cmd']
        o = ours.get(cmd, {})
        kind = 'doit' if 'doit' in e else 'dumpit'
        what = f'{cmd} {kind[:-2]}'
        check(kind in o, f'{what}: handled')
        admin = 'GENL_ADMIN_PERM' in e.get('flags', '')
        check(admin == ('GENL_UNS_ADMIN_PERM' in o.get('flags', '')),
              f'{what}: admin permission {"required" if admin else "not required"}')
        if 'policy' in e:
            check((o.get('policy'), o.get('maxattr')) ==
                  (e['policy'], e['maxattr']),
                  f'{what}: policy {e["policy"]}, maxattr {e["maxattr"]}',
                  f'ours: {o.get("policy")}, {o.get("maxattr")}')
        elif kind == 'doit':
            check(o.get('policy') == REJECT_ALL,
                  f'{what}: takes no attribute ({REJECT_ALL})',
                  f'ours: {o.get("policy")}')
        else:
            body = function_body(ours_text, o.get('dumpit', '?'))
            check('ft_nl_dump_no_attrs(cb)' in body,
                  f'{what}: takes no attribute (ft_nl_dump_no_attrs)')


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    repo, ynl_dir, schema_dir = (os.path.abspath(a) for a in sys.argv[1:])
    with tempfile.TemporaryDirectory() as tmp:
        # ynl-gen-c.py finds the schema next to the spec's directory and
        # the tree's root by its MAINTAINERS file.
        tree = os.path.join(tmp, 'tree')
        os.makedirs(os.path.join(tree, 'Documentation/netlink/specs'))
        open(os.path.join(tree, 'MAINTAINERS'), 'w').close()
        shutil.copy(os.path.join(schema_dir, 'genetlink.yaml'),
                    os.path.join(tree, 'Documentation/netlink'))
        shutil.copy(os.path.join(repo, SPEC), os.path.join(tree, SPEC))

        with open(os.path.join(schema_dir, 'genetlink.yaml')) as f:
            schema = yaml.safe_load(f)
        with open(os.path.join(repo, SPEC)) as f:
            spec = yaml.safe_load(f)
        try:
            jsonschema.validate(spec, schema)
            check(True, 'the spec validates against genetlink.yaml')
        except jsonschema.ValidationError as e:
            check(False, 'the spec validates against genetlink.yaml', str(e))
            return 1

        check_uapi(repo, generate(ynl_dir, tree, 'uapi --header'), tmp)
        kernel = generate(ynl_dir, tree, 'kernel --source')
        check_policies(repo, kernel)
        check_ops(repo, kernel)

    failed = results.count(False)
    print(f'1..{len(results)}')
    if failed:
        print(f'# {failed} of {len(results)} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
