# -*- coding: utf-8 -*-
# Copyright: 2026 the tuner authors
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
# Rolling back through tuner for the tuner module: state=rolled_back, and exclusive=true
# before it applies. `tuner status --json` says what is kept, `tuner history --json`
# which runs are in force, `tuner rollback --json` puts one run back.

from __future__ import absolute_import, division, print_function
__metaclass__ = type

from ansible_collections.tuner.node.plugins.module_utils.tuner_cli import (
    UnexpectedDocument, member)

# Statuses in a history entry whose changes are still in force (tuner's RunStatus).
IN_FORCE = ('finished', 'unfinished', 'rollback_failed')


def left_message(left, would):
    n = len(left)
    them = 'it' if n == 1 else 'them'
    names = ', '.join('%s (now %s)' % (k['knob'], k['live'] if k.get('live') is not None
                                       else 'unknown') for k in left)
    return ('tuner rollback %s %d setting%s someone changed since tuner set %s: %s; '
            'force: true puts %s back' % ('would leave' if would else 'left', n,
                                          '' if n == 1 else 's', them, names, them))


def status_of(tuner):
    """tuner status: 0 all kept settings as kept, 3 one drifted (someone changed it),
    4 a run is unfinished."""
    status = tuner.run_json('status', ['--json'], 'tuner.status/1', ok=(0, 3, 4))
    member(status, 'knobs', list, 'tuner status')
    return status


def predict_rollback(tuner, status, force, only=None):
    """Check mode: each kept setting (of only, when given) back to the value it had
    before the newest run that set it; the drifted ones left unless force. Returns
    (changes, left, pending): pending when a run would be rolled back whose changes
    tuner status cannot show (an unfinished run; with force, an earlier rollback's
    leftovers)."""
    kept = [k for k in status['knobs'] if only is None or k['knob'] in only]
    left = [] if force else [{'knob': k['knob'], 'live': k.get('live')} for k in kept
                             if k.get('state') == 'changed']
    left_ids = set(k['knob'] for k in left)
    changes = [{'knob': k['knob'], 'before': k.get('live'), 'after': k.get('before')}
               for k in kept if k.get('state') != 'gone' and k['knob'] not in left_ids
               and k.get('live') != k.get('before')]
    pending = bool(status.get('unfinished_run'))
    if force:
        runs = member(tuner.run_json('history', ['--json'], 'tuner.history/1'), 'runs', list,
                      'tuner history')
        pending |= any(r['kind'] == 'apply' and r['status'] == 'rolled_back' and r.get('left')
                       for r in runs)
    return changes, left, pending


def roll_back(tuner, status, force):
    """Rolls back every run in force: the unfinished one (`tuner rollback`), then the
    newest apply still in force, one at a time (`tuner rollback --last`). Returns
    (reports, changes, left)."""
    kept = status['knobs']
    unfinished = status.get('unfinished_run')
    runs = member(tuner.run_json('history', ['--json'], 'tuner.history/1'), 'runs', list,
                  'tuner history')
    in_force = [r for r in runs if r['kind'] == 'apply' and r['status'] in IN_FORCE
                and r['run_id'] != unfinished]
    # Settings an earlier rollback left because someone changed them: with force they
    # go back too, from a value no tuner document shows (before: null).
    earlier_left = set()
    if force:
        # `--last --force` also takes an apply whose rollback left changed settings.
        leftovers = [r for r in runs if r['kind'] == 'apply' and r['status'] == 'rolled_back'
                     and r.get('left')]
        in_force += leftovers
        earlier_left = set(k for r in leftovers for k in r['left'])
    steps = ([[]] if unfinished else []) + [['--last']] * len(in_force)

    live = dict((k['knob'], k.get('live')) for k in kept)
    first = {}    # knob -> its value before this task
    current = {}  # knob -> its value now
    order = []
    reports = []
    left = []
    for step in steps:
        args = step + (['--force'] if force else []) + ['--json']
        rc, report, out, err = tuner.run('rollback', args)
        # 3: done, but a setting someone changed since the run was left as it is.
        if rc not in (0, 3):
            extra = {'reports': reports + ([report] if isinstance(report, dict) else [])}
            tuner.fail(rc, report, out, err, status=status, **extra)
        if not isinstance(report, dict) or report.get('schema') != 'tuner.run/1':
            tuner.unexpected(UnexpectedDocument('no tuner.run/1 document'), reports=reports)
        reports.append(report)
        # The unfinished run's settings are in no state.json: those it put back were at
        # the value the run wrote (a rollback leaves any other), when it wrote at all.
        crashed = not step and report['changed'] is True
        for g in report['groups']:
            for c in g['changes']:
                knob = c['knob']
                if c['status'] == 'changed_since':
                    left.append({'knob': knob, 'live': live.get(knob), 'error': c.get('error', '')})
                if c['status'] != 'restored':
                    continue
                if knob not in first:
                    # A knob tuner does not keep was put back by the verify loop: it is
                    # at its old value already, whatever the report's `before` says.
                    if knob in live:
                        first[knob] = live[knob]
                    elif crashed:
                        first[knob] = c['before']
                    elif knob in earlier_left:
                        first[knob] = None
                    else:
                        first[knob] = c['after']
                    current[knob] = first[knob]
                    order.append(knob)
                current[knob] = c['after']
    changes = [{'knob': k, 'before': first[k], 'after': current[k]}
               for k in order if first[k] != current[k]]
    return reports, changes, left


def merge_changes(earlier, later):
    """Each knob's value before the earlier changes and after the later ones; knobs back
    where they were are dropped."""
    merged = {}
    order = []
    for c in earlier + later:
        if c['knob'] not in merged:
            merged[c['knob']] = dict(c)
            order.append(c['knob'])
        merged[c['knob']]['after'] = c['after']
    return [merged[k] for k in order if merged[k]['before'] != merged[k]['after']]
