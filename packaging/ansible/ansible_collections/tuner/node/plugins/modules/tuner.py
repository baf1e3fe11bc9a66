#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: 2026 the tuner authors
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
# The tuner Ansible module: apply a tuner profile on a node, or roll back what tuner
# kept there. It drives the tuner binary through its JSON contracts (DESIGN.md):
# `tuner plan --json` (check mode), `tuner apply --json`, `tuner status --json`,
# `tuner history --json` and `tuner rollback --json`.

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: tuner
short_description: Apply a tuner profile to a node, or roll back what tuner kept
version_added: "0.1.0"
description:
  - Runs the C(tuner) node auto-tuning agent on the managed node. With
    I(state=applied) it applies one or more profiles through C(tuner apply), which
    journals every write, verifies each group of changes with benchmarks (unless
    I(verify=false)) and keeps a group only on a proven gain.
  - With I(state=rolled_back) it puts back everything tuner still keeps on the node,
    run by run, newest first, from tuner's own journal (C(tuner rollback)).
  - Check mode is a dry run through C(tuner plan --json) (or C(tuner status --json)
    for I(state=rolled_back)); nothing is written. After a rollout it is C(ok) where a
    real run would change nothing (groups the verify loop rolled back here are not
    drift) and C(changed) where a kept setting drifted.
  - Diff mode returns the before and after value of every setting (knob) that changed
    or, in check mode, would change, one C(knob = value) line each.
  - The tuner binary is always called with an argument vector, never through a shell.
    A failure returns tuner's own message and exit code.
author:
  - tuner maintainers (!UNKNOWN)
requirements:
  - the C(tuner) binary on the managed node (in C(PATH) or given by I(binary))
  - root on the managed node for I(state=applied) and I(state=rolled_back) without
    check mode (use C(become))
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details:
      - A dry run through C(tuner plan). With I(verify=true) a group this node's verify
        loop already rolled back from the same values (the plan's C(rejected_here)) is
        not predicted as a change (verified again, it goes back again), and the real run
        reports no change for it. So after a rollout check mode is C(ok) wherever the real
        run changes nothing, and C(changed) where a kept setting drifted (a compliance
        gate). A group verified for the first time may still be rejected, so a real run can
        change less than check mode predicts.
  diff_mode:
    support: full
  platform:
    platforms: posix
options:
  state:
    description:
      - C(applied) applies the profiles (C(tuner apply --yes --json)).
      - C(rolled_back) rolls back every run whose changes tuner still keeps (an
        unfinished, crashed run first, then C(tuner rollback --last) until none is
        left). I(profile), I(verify), I(benchmarks), I(budget) and I(exclusive) are
        ignored.
      - A setting someone changed since tuner set it is left as it is (tuner's rule;
        the task warns and returns it in C(left)) unless I(force=true).
    type: str
    choices: [applied, rolled_back]
    default: applied
  profile:
    description:
      - Profile names (looked up in tuner's profile path) or paths to C(.toml) files
        on the managed node, merged in order, later ones winning (C(--profile),
        repeated).
      - Empty means tuner's best-matching profile for the node.
    type: list
    elements: str
    default: []
  verify:
    description:
      - Verify every group of changes with benchmarks and keep it only on a proven
        gain (tuner's verify loop).
      - C(false) passes C(--no-verify); every group is applied as it is.
      - With C(true) the profile (or I(benchmarks)) must name a benchmark, or tuner
        refuses with exit code 2 and nothing is changed.
    type: bool
    default: true
  benchmarks:
    description:
      - Benchmarks that decide every group (C(--bench NAME), repeated), instead of
        the profile's own. The first decides; the others must not get worse.
      - Built in are C(tcp), C(membw) and C(latency); a profile's C([bench.NAME])
        tables are also accepted.
      - Only used with I(verify=true).
    type: list
    elements: str
    default: []
  budget:
    description:
      - Time budget of the verify loop (C(--budget)), for example C(10m) or C(90s).
        Without it, the profile's C([verify] budget) (the shipped profiles set 20 to 35
        minutes, enough for every group in full; C(tuner plan) shows what each group can
        take), else 10 minutes.
      - Only used with I(verify=true). A long budget can outlast an SSH session; run
        the task with C(async) and C(poll) then.
    type: str
  state_dir:
    description:
      - tuner's state directory (C(--state-dir)), with its journals and kept settings.
      - Defaults to tuner's own default, C(/var/lib/tuner).
    type: path
  profile_path:
    description:
      - Directories searched for profile names (C(--profile-path)), in order.
      - Defaults to tuner's own search path (C(/etc/tuner/profiles),
        C(/usr/share/tuner/profiles)).
    type: list
    elements: path
  force:
    description:
      - Put back settings someone changed since tuner set them too (C(tuner rollback
        --force)), and those an earlier rollback left for that reason.
      - Without it such a setting stays as that person set it; the task warns, names
        it in C(left) and does not fail (tuner ended the run; a rerun has nothing to
        do).
      - Used by I(state=rolled_back) and by I(exclusive=true).
    type: bool
    default: false
  exclusive:
    description:
      - With I(state=applied), leave only the given profiles' settings in force, like
        TuneD's C(previous=replaced). When tuner keeps a setting that these profiles
        do not set (the node moves from profile A to B), every run still in force is
        rolled back first (newest first, as I(state=rolled_back)), then the profiles
        are applied. Settings both set go back and are applied again (and verified
        again with I(verify=true)); C(changes) and the diff show each setting's value
        before the task and after it.
      - When every kept setting is one these profiles set, nothing is rolled back, so a
        rerun changes nothing.
      - Needs a tuner whose C(tuner plan --json) lists C(unchanged_knobs).
    type: bool
    default: false
  class_label:
    description:
      - Add this label to the node's hardware class (C(--class-label)), for a split
        tuner cannot see (a rack, a switch generation). Nodes of one class share
        their verify decisions (I(decisions_out), I(decisions)); tuner's
        C(docs/fleet-decisions.md).
      - Passed to C(tuner plan) in check mode too.
    type: str
  decisions_out:
    description:
      - On a canary, also write this run's verify decisions (C(tuner.decision/1)) to
        this path on the managed node (C(--decisions-out)); the task returns the
        record as C(decision).
      - Needs I(verify=true); tuner refuses it with I(decisions) (exit code 2).
      - Ignored in check mode and with I(state=rolled_back).
    type: path
  decisions:
    description:
      - Reuse the class decisions in this C(tuner.decisions/1) file on the managed node
        (C(--decisions); C(tuner report --decisions-out) merges the canaries' records
        into it). Groups the node's class kept are written and watched by the guard
        soak only, without benchmark trials; groups the class rolled back, or whose
        canaries disagree, are not written. Each reused group's C(stats.class_decision)
        in C(report) says which class, canaries and file.
      - A class the file does not hold is verified on the node, unless
        I(require_decision=true).
      - A trusted file, like a profile (owned by root, not writable by others). Needs
        I(verify=true).
      - Ignored in check mode (C(tuner plan) lists every planned change) and with
        I(state=rolled_back).
    type: path
  decisions_content:
    description:
      - The C(tuner.decisions/1) document itself (a dict, or its JSON text), written to
        I(decisions) on the node before tuner runs (mode 0644, replaced whole, its
        directory made when missing; left alone when it already holds the same), as a
        copy task would do, without its two module runs per node. Writing it is not a
        change of the node (C(changed) counts settings only).
      - Needs I(decisions). Not written in check mode.
    type: raw
  require_decision:
    description:
      - With I(decisions), never verify on the node (C(--require-decision)); when the
        file holds no decision for the node's class and profiles tuner exits 2,
        changes nothing, and the task fails naming the class; a group the class did
        not decide is not written.
    type: bool
    default: false
  peer:
    description:
      - The address of another node where C(tuner bench --serve --address ADDR) runs
        (C(--peer ADDR)). The C(tcp) benchmarks of the profile's groups with
        C(peer = true) (a NIC's IRQs, channels and rings, which loopback cannot see) run
        against it over the real fabric, as copies named C(NAME@peer) in the group's
        C(stats.bench); the other groups keep their own benchmarks. A numeric IPv4 or
        IPv6 address; tuner refuses anything else with exit code 2, nothing changed.
      - Without it such a group has no benchmark and the guard soak alone decides it;
        the report's C(warnings) say C(group NAME needs a peer ...). tuner's
        C(docs/fleet-decisions.md), "Peers".
      - Needs I(verify=true) (tuner refuses C(--peer) with C(--no-verify)). Ignored in
        check mode (C(tuner plan) runs no benchmark) and with I(state=rolled_back).
      - The C(tuner.node.class_rollout) playbook pairs a class's canaries with
        C(tuner_peers=true); one serves while the other applies with it as I(peer),
        then the roles swap.
      - The server must prove the rollout's key (I(peer_key_file)); without one tuner
        exits 2 and changes nothing.
    type: str
  peer_key_file:
    description:
      - A file holding the rollout's shared key (C(--peer-key FILE)), the same on the
        node that serves (C(tuner bench --serve --peer-key FILE)). Every connection of a
        peer benchmark opens with a challenge-response over it, so a program of another
        user on the port, or a third host, can neither pass for the server nor be served.
      - The file must be a regular file owned by root and readable by root alone (mode
        0600); tuner refuses it otherwise (exit 2, nothing changed). The key never
        appears on a command line.
      - C(tuner.node.class_rollout) makes a fresh key per rollout and copies it to the
        paired canaries.
    type: path
  binary:
    description:
      - The tuner executable. A bare name is looked up in C(PATH) (and the sbin
        directories); a path is used as it is.
    type: path
    default: tuner
notes:
  - C(changed) is exact. For C(applied) it is true only if a setting was written and
    kept (a group the verify loop rolled back does not count); a second run with the
    same profiles reports no change. For C(rolled_back) it is true only if a setting
    was put back to a value other than its live one.
  - Most C(net.*) sysctls are per network namespace; tuner changes the namespace it
    runs in. Pods and containers started later begin most of them at the kernel's
    default (the plan's note names which); see docs/operators.md.
  - With I(state=rolled_back), a setting tuner changed but does not keep (the verify
    loop put it back) is taken to be at its old value already; C(tuner status)
    reports live values only for kept settings.
  - In check mode with I(exclusive=true) the diff shows the settings that are not in
    the new profiles going back and the planned changes; settings both set, which a
    real run rolls back and applies again, are not listed.
  - In check mode with I(verify=true), the groups tuner's plan marks C(rejected_here)
    (this node's newest verify decision on exactly these changes, from exactly these
    values, rolled them back) and, without I(benchmarks), the groups no benchmark
    measures that are not C(keep_if_neutral) (never written) are not predicted as
    changes, as the real run does not count them. A kept setting someone changed since
    is planned again and predicted, so check mode reports it as C(changed). A real run
    verifies a rejected group again (from the same values with the same benchmarks it
    goes back again); a noisy benchmark that decides otherwise keeps it, which check
    mode did not predict. With I(verify=false) every planned change is predicted.
  - In check mode with I(decisions) the prediction is C(tuner plan --decisions), which
    leaves out the groups the class rolled back or disagrees on (and, with
    I(require_decision), those it did not decide), as the real run leaves them; a group
    verified on the node may still be rolled back by the real run, so it can change less
    than check mode predicts, never more. I(decisions_content) is read from a private
    temporary file; when neither it nor the I(decisions) file is there yet (a rollout
    that copies the file first, in check mode), every planned change is predicted.
  - In check mode with I(state=rolled_back) the diff shows the value each kept
    setting had before the newest run that set it (what C(tuner status) reports); a
    setting changed by several kept runs goes back further, to its value before the
    oldest, as the real run's diff shows.
seealso:
  - module: tuner.node.tuner_facts
'''

EXAMPLES = r'''
- name: Apply the network-throughput profile, verified with the TCP benchmark
  tuner.node.tuner:
    profile: network-throughput
    benchmarks: [tcp]
    budget: 5m
  become: true
  register: tuned

- name: Show what tuner kept
  ansible.builtin.debug:
    msg: "{{ tuned.report.groups | map(attribute='decision') | list }}"

- name: Apply two profiles unverified, with a state directory of our own
  tuner.node.tuner:
    profile:
      - throughput
      - /etc/tuner/profiles/site-trainer.toml
    verify: false
    state_dir: /var/lib/tuner
  become: true

- name: Dry run with the before and after of every setting (run with --check --diff)
  tuner.node.tuner:
    profile: latency
    verify: false
  check_mode: true
  diff: true
  become: true

- name: Put back everything tuner kept on the node
  tuner.node.tuner:
    state: rolled_back
  become: true

- name: The same, also where someone changed a setting by hand since
  tuner.node.tuner:
    state: rolled_back
    force: true
  become: true

- name: A canary of its class (rack a17) records what its verify loop decided
  tuner.node.tuner:
    profile: network-throughput
    class_label: rack-a17
    decisions_out: /var/lib/tuner/decision.json
  become: true
  register: canary

- name: The rest of the class reuses the canaries' merged decisions, soak only
  tuner.node.tuner:
    profile: network-throughput
    class_label: rack-a17
    decisions: /etc/tuner/decisions.json
    require_decision: true
  become: true

- name: The same, the merged file taken from the controller
  tuner.node.tuner:
    profile: network-throughput
    class_label: rack-a17
    decisions: /etc/tuner/decisions.json
    decisions_content: "{{ lookup('ansible.builtin.file', 'tuner-reports/20261206T100000Z.decisions.json') }}"
  become: true

- name: A canary verifies its NIC groups against its partner, which runs tuner bench --serve
  tuner.node.tuner:
    profile: network-throughput
    class_label: rack-a17
    decisions_out: /var/lib/tuner/decision.json
    peer: 10.20.0.12
  become: true

- name: Move the node from its old profile to latency, keeping nothing of the old one
  tuner.node.tuner:
    profile: latency
    verify: false
    exclusive: true
  become: true
'''

RETURN = r'''
report:
  description:
    - The C(tuner.run/1) run report of C(tuner apply --json) (schema in tuner's
      DESIGN.md), for I(state=applied) without check mode. Also returned on failure
      when tuner printed one.
    - C(run_id) is null and C(groups) empty when there was nothing to change.
  returned: state is applied, not in check mode
  type: dict
  sample:
    schema: tuner.run/1
    run_id: 20261201T105820Z-ba1a
    changed: true
    profiles: [network-throughput]
    groups:
      - name: sysctl
        decision: applied
        stats: {}
        changes:
          - knob: sysctl:net.core.somaxconn
            before: "4096"
            after: "8191"
            status: applied
    errors: []
decision:
  description:
    - The C(tuner.decision/1) record tuner wrote to I(decisions_out), as tuner's
      C(docs/fleet-decisions.md) describes it; the node's hardware class, the profiles'
      digest and every group the verify loop decided, with its stats.
  returned: decisions_out is set, state is applied, not in check mode, and tuner wrote it
  type: dict
  sample:
    schema: tuner.decision/1
    node: gpu-a01
    run_id: 20261206T100000Z-3f1c
    class: {key: hw-3f9c0a51d2e47b88, facts: {cpu_model: AMD EPYC 7B13, label: rack-a17}}
    profile: {names: [network-throughput], digest: "fnv1a64:0123456789abcdef"}
    false_keep_rate: 0.05
    groups:
      - name: net-buffers
        decision: kept
        reason: gain
        chosen: null
        knobs: {"sysctl:net.core.rmem_max": "16777216"}
        stats: {}
reports:
  description:
    - The C(tuner.run/1) reports of every C(tuner rollback) run, in the order run
      (newest apply first). Empty when there was nothing to roll back.
  returned: state is rolled_back, or exclusive is true; not in check mode
  type: list
  elements: dict
  sample:
    - schema: tuner.run/1
      run_id: 20261201T105820Z-ba1a
      changed: true
      profiles: [network-throughput]
      groups:
        - name: sysctl
          decision: rolled_back
          stats: {}
          changes:
            - knob: sysctl:net.core.somaxconn
              before: "8191"
              after: "4096"
              status: restored
      errors: []
plan:
  description:
    - The C(tuner.plan/1) document of C(tuner plan --json) (check mode). Its C(changes)
      include those of groups check mode does not predict; each group's
      C(rejected_here) names the run that rolled it back here before.
  returned: state is applied, in check mode
  type: dict
  sample:
    schema: tuner.plan/1
    profiles: [network-throughput]
    changes:
      - knob: sysctl:net.core.somaxconn
        group: sysctl
        current: "4096"
        desired: "8191"
        reason: profile sets 8191 (network-throughput.toml:12)
    groups: [{name: sysctl, bench: [tcp], measurable: true, keep_if_neutral: false, bisect: false, peer: false}]
    unchanged: 3
    notes: []
status:
  description:
    - The C(tuner.status/1) document of C(tuner status --json) taken before rolling
      back (kept settings, their live values, an unfinished run).
  returned: state is rolled_back, or exclusive is true
  type: dict
  sample:
    schema: tuner.status/1
    drift: 0
    unfinished_run: null
    knobs:
      - knob: sysctl:net.core.somaxconn
        group: sysctl
        before: "4096"
        kept: "8191"
        live: "8191"
        drift: false
        run_id: 20261201T105820Z-ba1a
changes:
  description:
    - Every setting that changed (or, in check mode, would change), in order, with its
      value before and after.
    - C(before) is null where no tuner document shows it (a setting an earlier rollback
      left, put back with I(force=true)); the diff shows it as C((unknown)).
  returned: always
  type: list
  elements: dict
  sample:
    - knob: sysctl:net.core.somaxconn
      before: "4096"
      after: "8191"
left:
  description:
    - Settings a rollback left because someone changed them since tuner set them (in
      check mode, would leave), with their value now; I(force=true) puts them back.
  returned: state is rolled_back, or exclusive is true
  type: list
  elements: dict
  sample:
    - knob: sysctl:net.core.somaxconn
      live: "1024"
msg:
  description: What the task left as it was, when it left something (see C(left)).
  returned: when a setting was left
  type: str
  sample: "tuner rollback left 1 setting someone changed since tuner set it:
    sysctl:net.core.somaxconn (now 1024); force: true puts it back"
cmd:
  description: The argument vectors tuner was run with, in order.
  returned: always
  type: list
  elements: list
  sample: [[/usr/bin/tuner, apply, --color, never, --yes, --json, --profile, network-throughput, --bench, tcp]]
rc:
  description:
    - tuner's exit code (of the last command run). Not 0 on success where tuner says
      more than success with it (C(tuner status) 3 drift or 4 an unfinished run,
      C(tuner rollback) 3 a setting left).
  returned: when tuner ran
  type: int
  sample: 0
stderr:
  description: tuner's standard error (of the last command run).
  returned: when tuner ran
  type: str
  sample: ""
'''


import json
import os
import shutil
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.six import string_types
from ansible_collections.tuner.node.plugins.module_utils.tuner_cli import (
    Tuner, UnexpectedDocument, find_binary, unwritten_groups)
from ansible_collections.tuner.node.plugins.module_utils.tuner_rollback import (
    left_message, merge_changes, predict_rollback, roll_back, status_of)
# What a document of another shape raises while it is read.
SHAPE_ERRORS = (UnexpectedDocument, KeyError, TypeError, AttributeError, ValueError,
                IndexError)
# tuner's exit 5: the command did its work (an apply's run stands) but an output file
# (--report, --prometheus) could not be written. Success, with tuner's message as a
# warning; never exit 1, which means the run was rolled back.
OUTPUT_NOT_WRITTEN = 5


def global_args(p):
    args = ['--color', 'never']
    if p['state_dir']:
        args += ['--state-dir', p['state_dir']]
    if p['profile_path']:
        args += ['--profile-path', ':'.join(p['profile_path'])]
    return args


def diff_of(changes, before_header, after_header):
    def lines(key):
        return ''.join('%s = %s\n' % (c['knob'], '(unknown)' if c[key] is None else c[key])
                       for c in changes)
    return {'before': lines('before'), 'after': lines('after'),
            'before_header': before_header, 'after_header': after_header}


def profile_args(p):
    args = []
    for name in p['profile']:
        args += ['--profile', name]
    if p['class_label'] is not None:
        args += ['--class-label', p['class_label']]
    return args


def decision_args(p):
    """--decisions-out, --decisions, --require-decision, --peer and --peer-key as given: tuner
    itself refuses a combination it cannot honour (with --no-verify, or both files),
    and a peer that is not an address, with its own message."""
    args = []
    if p['decisions_out']:
        args += ['--decisions-out', p['decisions_out']]
    if p['decisions']:
        args += ['--decisions', p['decisions']]
    if p['require_decision']:
        args.append('--require-decision')
    if p['peer'] is not None:
        args += ['--peer', p['peer']]
    if p['peer_key_file']:
        args += ['--peer-key', p['peer_key_file']]
    return args


def write_decisions(module, path, content):
    """Writes the tuner.decisions/1 document content (a dict or its JSON text) to path,
    whole, unless path already holds the same text."""
    if isinstance(content, string_types):
        try:
            content = json.loads(content)
        except ValueError as e:
            module.fail_json(msg='decisions_content is not JSON: %s' % e)
    if not isinstance(content, dict) or content.get('schema') != 'tuner.decisions/1':
        module.fail_json(msg='decisions_content is not a tuner.decisions/1 document (schema %s)'
                             % json.dumps(content.get('schema') if isinstance(content, dict)
                                          else type(content).__name__))
    text = json.dumps(content, indent=2, sort_keys=True) + '\n'
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except (IOError, OSError):
        pass
    directory = os.path.dirname(path) or '.'
    try:
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o755)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix='.decisions.')
        with os.fdopen(fd, 'w') as f:
            f.write(text)
        os.chmod(tmp, 0o644)
    except (IOError, OSError) as e:
        module.fail_json(msg='decisions_content: cannot write %s: %s' % (path, e))
    module.atomic_move(tmp, path)


def read_decision(module, path):
    """The tuner.decision/1 record tuner wrote to path, or None (with a warning) when
    it is not there or not one."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (IOError, OSError, ValueError) as e:
        module.warn('decisions_out %s: no decision record could be read: %s' % (path, e))
        return None
    if not isinstance(doc, dict) or doc.get('schema') != 'tuner.decision/1':
        raise UnexpectedDocument('%s holds schema %s where tuner.decision/1 was expected'
                                 % (path, json.dumps(doc.get('schema') if isinstance(doc, dict)
                                                     else doc)))
    return doc


def note_left(module, result, left, would):
    result['left'] = left
    if left:
        result['msg'] = left_message(left, would)
        module.warn(result['msg'])


def plan_of(module, tuner):
    """tuner plan --json; in check mode with decisions, plan --decisions as the run would
    read them (decisions_content in a private temporary file, since check mode writes
    nothing on the node), so the prediction leaves out what the class will not write."""
    p = module.params
    args = ['--json'] + profile_args(p)
    if not (module.check_mode and p['decisions']):
        return tuner.run_json('plan', args, 'tuner.plan/1')
    tmpdir = None
    path = p['decisions']
    if p['decisions_content'] is None and not os.path.exists(path):
        # Check mode of a rollout whose copy of the file was skipped: nothing to read
        # yet, so every planned change is predicted (the real run reads the file).
        module.warn('decisions %s is not there yet: check mode predicts every planned '
                    'change' % path)
        return tuner.run_json('plan', args, 'tuner.plan/1')
    try:
        if p['decisions_content'] is not None:
            tmpdir = tempfile.mkdtemp(prefix='tuner-check.')
            path = os.path.join(tmpdir, 'decisions.json')
            write_decisions(module, path, p['decisions_content'])
        args += ['--decisions', path]
        if p['require_decision']:
            args.append('--require-decision')
        return tuner.run_json('plan', args, 'tuner.plan/1')
    finally:
        if tmpdir:
            shutil.rmtree(tmpdir, ignore_errors=True)


def applied(module, tuner):
    p = module.params
    label = ', '.join(p['profile']) or 'best match'
    result = {}
    plan = None
    before = []  # changes of the rollback exclusive makes first
    if module.check_mode or p['exclusive']:
        plan = plan_of(module, tuner)
    if p['exclusive']:
        status = status_of(tuner)
        if not isinstance(plan.get('unchanged_knobs'), list):
            module.fail_json(msg='exclusive needs a tuner whose plan lists unchanged_knobs '
                                 '(tuner plan --json of December 2026 or later); this one '
                                 'does not', cmd=tuner.cmds)
        covered = set(c['knob'] for c in plan['changes']) | set(plan['unchanged_knobs'])
        stray = set(k['knob'] for k in status['knobs']) - covered
        result['status'] = status
        if module.check_mode:
            before, left, pending = predict_rollback(tuner, status, p['force'], stray)
            result['changed'] = pending
            note_left(module, result, left, True)
        elif stray or status.get('unfinished_run'):
            reports, before, left = roll_back(tuner, status, p['force'])
            result['reports'] = reports
            note_left(module, result, left, False)
        else:
            result['reports'] = []
            result['left'] = []
    if module.check_mode:
        # What the real run leaves as it is (skipped by the class decisions, rolled back
        # here before from these values, left out unmeasured): not changes.
        skipped = unwritten_groups(plan, p['verify'], p['benchmarks'])
        changes = [{'knob': c['knob'], 'before': c['current'], 'after': c['desired']}
                   for c in plan['changes'] if c['group'] not in skipped]
        result.update(plan=plan, changes=merge_changes(before, changes))
        result['changed'] = bool(result['changes']) or result.get('changed', False)
        header = 'planned by tuner (profile %s)' % label
    else:
        if p['decisions_content'] is not None:
            write_decisions(module, p['decisions'], p['decisions_content'])
        if p['decisions_out'] and os.path.lexists(p['decisions_out']):
            # Never return an earlier run's record as this one's.
            os.unlink(p['decisions_out'])
        args = ['--yes', '--json'] + profile_args(p) + decision_args(p)
        if p['verify']:
            for bench in p['benchmarks']:
                args += ['--bench', bench]
            if p['budget']:
                args += ['--budget', p['budget']]
        else:
            args.append('--no-verify')
            if p['benchmarks'] or p['budget']:
                module.warn('benchmarks and budget are ignored with verify=false')
        rc, report, out, err = tuner.run('apply', args)
        if rc == OUTPUT_NOT_WRITTEN:
            module.warn('tuner apply: the run stands, but: %s' % err.strip())
        elif rc != 0:
            # A run report when the run began; a tuner.error/1 document when it did not.
            ran = isinstance(report, dict) and report.get('schema') == 'tuner.run/1'
            extra = {'report': report} if ran else {}
            if 'reports' in result:
                extra['reports'] = result['reports']
            tuner.fail(rc, report, out, err, **extra)
        if not isinstance(report, dict):
            module.fail_json(msg='tuner apply printed no JSON document', rc=rc, stdout=out,
                             stderr=err, cmd=tuner.cmds)
        if report.get('schema') != 'tuner.run/1':
            tuner.unexpected(UnexpectedDocument('schema %s where tuner.run/1 was expected'
                                                % report.get('schema')))
        # Kept and written: a change the verify loop rolled back left the node as it was.
        changes = [{'knob': c['knob'], 'before': c['before'], 'after': c['after']}
                   for g in report['groups'] for c in g['changes']
                   if c['status'] == 'applied' and c['before'] != c['after']]
        changes = merge_changes(before, changes)
        result.update(changed=bool(changes), report=report, changes=changes)
        if p['decisions_out']:
            decision = read_decision(module, p['decisions_out'])
            if decision is not None:
                result['decision'] = decision
        header = 'applied by tuner run %s (profile %s)' % (report.get('run_id'), label)
        if result.get('reports'):
            header = 'rolled back %d tuner runs, then %s' % (len(result['reports']), header)
    if module._diff:
        result['diff'] = diff_of(result['changes'], 'live values', header)
    return result


def rolled_back(module, tuner):
    force = module.params['force']
    status = status_of(tuner)
    result = {'status': status}
    if module.check_mode:
        changes, left, pending = predict_rollback(tuner, status, force)
        result.update(changed=bool(changes) or pending, changes=changes)
        note_left(module, result, left, True)
        header = 'rolled back (predicted from tuner status)'
    else:
        reports, changes, left = roll_back(tuner, status, force)
        result.update(changed=bool(changes), reports=reports, changes=changes)
        note_left(module, result, left, False)
        header = 'rolled back (%d tuner runs)' % len(reports)
    if module._diff:
        result['diff'] = diff_of(result['changes'], 'live values', header)
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type='str', default='applied', choices=['applied', 'rolled_back']),
            profile=dict(type='list', elements='str', default=[]),
            verify=dict(type='bool', default=True),
            benchmarks=dict(type='list', elements='str', default=[]),
            budget=dict(type='str'),
            state_dir=dict(type='path'),
            profile_path=dict(type='list', elements='path'),
            force=dict(type='bool', default=False),
            exclusive=dict(type='bool', default=False),
            class_label=dict(type='str'),
            decisions_out=dict(type='path'),
            decisions=dict(type='path'),
            decisions_content=dict(type='raw'),
            require_decision=dict(type='bool', default=False),
            peer=dict(type='str'),
            peer_key_file=dict(type='path', no_log=False),
            binary=dict(type='path', default='tuner'),
        ),
        supports_check_mode=True,
    )
    p = module.params
    for option in ('require_decision', 'decisions_content'):
        if p[option] not in (None, False) and not p['decisions']:
            module.fail_json(msg='%s needs decisions (the tuner.decisions/1 file on the node)'
                                 % option)
    tuner = Tuner(module, find_binary(module, p['binary']), global_args(p))
    try:
        if p['state'] == 'applied':
            result = applied(module, tuner)
        else:
            result = rolled_back(module, tuner)
    except SHAPE_ERRORS as e:
        tuner.unexpected(e)
    # rc may be 3 or 4 on success (see RETURN): Ansible takes a non-zero rc without
    # `failed` for a failure.
    module.exit_json(cmd=tuner.cmds, rc=tuner.rc, stderr=tuner.stderr, failed=False, **result)


if __name__ == '__main__':
    main()
