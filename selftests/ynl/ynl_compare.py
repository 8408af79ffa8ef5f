#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare what the kernel's YNL CLI (cli.py --output-json) decoded with
what "ftctl -j" printed for the same state, field by field.

    ynl_compare.py KIND DESC YNL.json FTCTL.json [ARG...]
    ynl_compare.py --batch FILE     one such command line a line, the
                                    arguments separated by tabs

KIND:
  devs     dev-get --dump           vs ftctl -j show
  stats    stats-get do             vs ftctl -j stats       ARG: the spec
  percpu   stats-get do stats-percpu vs ftctl -j stats -s (per_cpu)
  cpudump  stats-get --dump         vs ftctl -j stats -s (per_cpu)
                                                            ARG: possible CPUs
  config   config-get               vs ftctl -j get         ARG: KEY=VALUE...
  flows    flow-get --dump          vs ftctl -j flows       ARG: min flows
  events   --subscribe events       vs ftctl -j monitor     ARG: port, the
                                    events expected for it ("new new del del")
  rules    rule-get --dump          vs ftctl -j show rules
  family   nlctrl getfamily         vs the spec (FTCTL.json is the spec)
  schema   the spec (YNL.json) validates against genetlink.yaml (FTCTL.json)

Prints one "TEST: ... [ OK ]" or "[FAIL]" line per object compared, as
selftests/lib.sh does, with the fields that differ; exits 1 if any did.
"""

import ipaddress
import json
import sys

failed = False


def log_test(desc, ok, details=()):
    global failed
    print('TEST: %-64s [%s]' % (desc, ' OK ' if ok else 'FAIL'))
    if not ok:
        failed = True
        for d in details:
            print('\t' + d)


def load(path):
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        # ftctl -j monitor: one document per line.
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def ftctl_strip(obj):
    """ftctl's JSON without its own format version (json_schema_version,
    ftctl(8)), which is not the module's."""
    if isinstance(obj, list):
        return [ftctl_strip(o) for o in obj]
    if isinstance(obj, dict):
        return {k: ftctl_strip(v) for k, v in obj.items() if k != 'json_schema_version'}
    return obj


def compare(desc, want, got, skip=()):
    """want: ftctl's view, got: ynl's, mapped to ftctl's names."""
    diffs = []
    for k in sorted(set(want) | set(got)):
        if k in skip:
            continue
        if k not in got:
            diffs.append('%s: ftctl %r, ynl has none' % (k, want[k]))
        elif k not in want:
            diffs.append('%s: ynl %r, ftctl has none' % (k, got[k]))
        elif want[k] != got[k]:
            diffs.append('%s: ftctl %r, ynl %r' % (k, want[k], got[k]))
    n = len((set(want) | set(got)) - set(skip))
    log_test('%s (%d fields)' % (desc, n), not diffs and n > 0, diffs)


def flatten(obj, prefix=''):
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + '.'))
        else:
            out[prefix + k] = v
    return out


# stats: a spec name to ftctl's JSON path.
def stat_name(name):
    if name == 'forwarded-pkts':
        return 'forwarded.packets'
    if name == 'forwarded-bytes':
        return 'forwarded.bytes'
    for pfx, group in (('punt-', 'punted'), ('nolearn-', 'not_learned'),
                       ('xdp-', 'xdp')):
        if name.startswith(pfx):
            return group + '.' + name[len(pfx):].replace('-', '_')
    return name.replace('-', '_')


def stats_map(s):
    return {stat_name(k): v for k, v in s.items()}


def dev_map(d):
    out = {'ifindex': d.get('ifindex'), 'ifname': d.get('ifname')}
    for fam in ('ipv4', 'ipv6'):
        nest = d.get('dev-' + fam, {})
        for k, v in nest.items():
            if k == 'punted':
                for n, c in stats_map(v).items():
                    out['%s.%s' % (fam, n)] = c
            elif k.startswith('xdp-'):
                out['%s.xdp.%s' % (fam, k[len('xdp-'):])] = v
            else:
                out['%s.%s' % (fam, k)] = bool(v) if k == 'enabled' else v
    # A set of flag names in cli.py's JSON: unordered.
    if 'dev-xdp-blocked' in d:
        out['xdp_blocked'] = sorted(d['dev-xdp-blocked'])
    return out


FAMILY = {2: 'ipv4', 10: 'ipv6'}
PROTO = {6: 'tcp', 17: 'udp'}
DIR = {0: 'original', 1: 'reply'}


def flow_map(f):
    out = {}
    for k, v in f.items():
        n = k.replace('-', '_')
        if k == 'family':
            v = FAMILY.get(v, v)
        elif k == 'proto':
            v = PROTO.get(v, v)
        elif k == 'dir':
            v = DIR.get(v, v)
        elif k in ('src', 'dst', 'nat-src', 'nat-dst'):
            # Hex from cli.py; an address if the spec gets a display-hint.
            try:
                v = str(ipaddress.ip_address(v))
            except ValueError:
                v = str(ipaddress.ip_address(bytes.fromhex(v)))
        out[n] = v
    return out


def ftctl_flow(f):
    # The device names are ftctl's own (from the ifindex); the event kind
    # is compared separately.
    return {k: v for k, v in f.items() if k not in ('iif_name', 'oif_name', 'event')}


def kind_devs(desc, ynl, ft):
    if isinstance(ynl, dict):
        ynl = [ynl]
    got = {d['ifindex']: dev_map(d) for d in ynl}
    want = {d['ifindex']: flatten(d) for d in ft}
    for d in want.values():
        if 'xdp_blocked' in d:
            d['xdp_blocked'] = sorted(d['xdp_blocked'])
    log_test('%s: the same devices' % desc, sorted(got) == sorted(want) and got,
             ['ftctl: %s' % sorted(want), 'ynl:   %s' % sorted(got)])
    # "tier" is ftctl's reading of the XDP tier's pins, not netlink's.
    for i in sorted(set(got) & set(want)):
        compare('%s: %s' % (desc, want[i].get('ifname')), want[i], got[i],
                skip=('tier',))


def kind_stats(desc, ynl, ft, spec=None):
    got = stats_map(ynl['stats'])
    want = flatten(ft)
    want.pop('per_cpu', None)
    compare(desc, want, got)
    if spec:
        import yaml
        with open(spec) as f:
            y = yaml.safe_load(f)
        names = [a['name'] for s in y['attribute-sets'] if s['name'] == 'stats'
                 for a in s['attributes'] if a['name'] not in ('pad', 'cpu')]
        missing = sorted(set(names) - set(ynl['stats']))
        log_test('%s: the module sends every counter of the spec' % desc, not missing,
                 ['missing: %s' % ' '.join(missing)])


def per_cpu(desc, got_list, ft):
    want = {c['cpu']: flatten(c) for c in ft.get('per_cpu', [])}
    got = {c['cpu']: c for c in got_list}
    log_test('%s: the same CPUs' % desc, sorted(got) == sorted(want) and got,
             ['ftctl: %s' % sorted(want), 'ynl:   %s' % sorted(got)])
    for cpu in sorted(set(got) & set(want)):
        compare('%s: cpu %d' % (desc, cpu), want[cpu], got[cpu])


def kind_percpu(desc, ynl, ft):
    per_cpu(desc, [stats_map(c) for c in ynl.get('stats-cpu', [])], ft)


def kind_cpudump(desc, ynl, ft, ncpus):
    log_test('%s: one message per possible CPU (%s)' % (desc, ncpus), len(ynl) == int(ncpus),
             ['%d messages' % len(ynl)])
    got = []
    for m in ynl:
        c = stats_map(m.get('stats', {}))
        if 'cpu' in m:
            c['cpu'] = m['cpu']
        got.append(c)
    ok = all('cpu' in m and 'stats' in m for m in ynl)
    log_test('%s: every message has cpu and stats' % desc, ok and ynl, [json.dumps(ynl)[:400]])
    per_cpu(desc, got, ft)


def kind_config(desc, ynl, ft, *expect):
    got = {k[len('cfg-'):].replace('-', '_'): v for k, v in ynl.items()}
    want = {k: int(v, 16) if isinstance(v, str) else v for k, v in ft.items()}
    compare('%s: ynl and ftctl' % desc, want, got)
    exp = {}
    for e in expect:
        k, v = e.split('=')
        exp[k] = int(v, 0)
    compare('%s: the values set' % desc, exp, got)


def kind_flows(desc, ynl, ft, nmin='1'):
    got = {m['flow']['id']: flow_map(m['flow']) for m in ynl}
    want = {f['id']: ftctl_flow(f) for f in ft}
    log_test('%s: the same %s+ flow ids' % (desc, nmin),
             sorted(got) == sorted(want) and len(got) >= int(nmin),
             ['ftctl: %s' % sorted(want), 'ynl:   %s' % sorted(got)])
    for i in sorted(set(got) & set(want)):
        w, g = want[i], got[i]
        d = '%s: flow %d %s %s %s' % (desc, i, w.get('family'), w.get('proto'), w.get('dir'))
        compare(d, w, g, skip=('age_ms', 'idle_ms'))
        # ynl read first, ftctl after: time only grows (idle is kept to
        # about half a second).
        ok = all(k in g and k in w for k in ('age_ms', 'idle_ms')) and \
            g['age_ms'] <= w['age_ms'] and g['idle_ms'] <= w['idle_ms'] + 1000
        log_test(d + ': age and idle grow from ynl to ftctl', ok,
                 ['ynl %s/%s ms, ftctl %s/%s ms' % (g.get('age_ms'), g.get('idle_ms'),
                                                    w.get('age_ms'), w.get('idle_ms'))])


def kind_events(desc, ynl, ft, port, expect):
    port = int(port)

    def ours(f):
        return port in (f.get('sport'), f.get('dport'))

    got = [('new' if m['name'] == 'flow-new' else 'del' if m['name'] == 'flow-del' else m['name'],
            flow_map(m['msg']['flow'])) for m in ynl if 'flow' in m.get('msg', {})]
    got = [(e, f) for e, f in got if ours(f)]
    want = [(f['event'], ftctl_flow(f)) for f in ft if ours(f)]
    seq_g = [(e, f.get('dir')) for e, f in got]
    seq_w = [(e, f.get('dir')) for e, f in want]
    log_test('%s: the same events, in the same order' % desc,
             seq_g == seq_w and sorted(e for e, _ in seq_g) == sorted(expect.split()),
             ['ftctl: %s' % seq_w, 'ynl:   %s' % seq_g])
    for (e, g), (_, w) in zip(got, want):
        # The same multicast message, decoded twice: every field equal,
        # the times too.
        compare('%s: %s %s' % (desc, e, w.get('dir')), w, g)
    for e, g in got:
        if e == 'del':
            log_test('%s: del %s: reason torn-down' % (desc, g.get('dir')),
                     g.get('reason') == 'torn-down', ['reason: %r' % g.get('reason')])


def kind_rules(desc, ynl, ft):
    got = [{'name': r.get('ifname'), 'ipv4': 'ipv4' in r.get('families', []),
            'ipv6': 'ipv6' in r.get('families', [])} for r in ynl]
    # devices: ftctl's own, from the enabled devices a rule matches.
    want = [{k: v for k, v in r.items() if k != 'devices'} for r in ft]
    log_test('%s: the same rules, in the same order' % desc,
             [r['name'] for r in got] == [r['name'] for r in want] and got,
             ['ftctl: %s' % [r['name'] for r in want], 'ynl:   %s' % [r['name'] for r in got]])
    for g, w in zip(got, want):
        compare('%s: %s' % (desc, w['name']), w, g)


def kind_family(desc, ynl, spec_path):
    # The kernel's registered ops and groups (the family controller's
    # answer) against the spec's operations: ids, do/dump, permissions.
    import yaml
    with open(spec_path) as f:
        y = yaml.safe_load(f)
    ops = {}
    for m in ynl.get('ops', []):
        for v in (m.values() if 'id' not in m else [m]):
            ops[v['id']] = set(v.get('flags', []))
    val = 1
    want = {}
    for op in y['operations']['list']:
        val = op.get('value', val)
        if 'do' in op or 'dump' in op:
            want[val] = op
        val += 1
    log_test('%s: the same commands' % desc, sorted(ops) == sorted(want),
             ['spec:   %s' % sorted(want), 'kernel: %s' % sorted(ops)])
    for v in sorted(set(ops) & set(want)):
        op, fl = want[v], ops[v]
        got = {'do': 'cmd-cap-do' in fl, 'dump': 'cmd-cap-dump' in fl,
               # The schema knows admin-perm only; the module asks for
               # CAP_NET_ADMIN in the netns's user namespace.
               'admin': bool(fl & {'admin-perm', 'uns-admin-perm'})}
        exp = {'do': 'do' in op, 'dump': 'dump' in op,
               'admin': 'admin-perm' in op.get('flags', [])}
        compare('%s: %s (cmd %d)' % (desc, op['name'], v), exp, got)
    groups = sorted(g['name'] for m in ynl.get('mcast-groups', [])
                    for g in (m.values() if 'name' not in m else [m]))
    spec_groups = sorted(g['name'] for g in y.get('mcast-groups', {}).get('list', []))
    log_test('%s: multicast groups %s' % (desc, ' '.join(spec_groups)), groups == spec_groups,
             ['spec: %s' % spec_groups, 'kernel: %s' % groups])


def schema(desc, spec_path, schema_path):
    import jsonschema
    import yaml
    with open(spec_path) as f:
        spec = yaml.safe_load(f)
    with open(schema_path) as f:
        sch = yaml.safe_load(f)
    try:
        jsonschema.validate(spec, sch)
        log_test(desc, True)
    except jsonschema.ValidationError as e:
        log_test(desc, False, str(e).splitlines()[:20])


KINDS = {'devs': kind_devs, 'stats': kind_stats, 'percpu': kind_percpu,
         'cpudump': kind_cpudump, 'config': kind_config, 'flows': kind_flows,
         'events': kind_events, 'family': kind_family, 'rules': kind_rules}


def run(kind, desc, ynl_path, ft_path, *args):
    if kind == 'schema':
        schema(desc, ynl_path, ft_path)
        return
    try:
        ynl = load(ynl_path)
        ft = ft_path if kind == 'family' else ftctl_strip(load(ft_path))
    except (OSError, ValueError) as e:
        log_test(desc, False, ['cannot read the outputs: %s' % e])
        return
    try:
        KINDS[kind](desc, ynl, ft, *args)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        log_test(desc, False, ['unexpected shape: %r' % e,
                               'ynl:   ' + json.dumps(ynl)[:600],
                               'ftctl: ' + json.dumps(ft)[:600]])


if __name__ == '__main__':
    if sys.argv[1] == '--batch':
        with open(sys.argv[2]) as f:
            for line in f:
                if line.strip():
                    run(*line.rstrip('\n').split('\t'))
    else:
        run(*sys.argv[1:])
    sys.exit(1 if failed else 0)
