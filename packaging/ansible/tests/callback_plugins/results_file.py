# A test-only callback: every task's result per host, written as JSON to the file named
# by $TUNER_ANSIBLE_RESULTS when the playbook ends (the layout of ansible.posix's json
# callback, which ansible-core alone does not ship), with the time each play (each batch
# of a serial play) and task started, and the playbook's end, in seconds since the epoch
# (fleet_test.sh's timings). The normal output is unchanged.
from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json
import os
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = '''
name: results_file
type: notification
short_description: write every task result to $TUNER_ANSIBLE_RESULTS as JSON (tests)
description: [test.sh reads the results of its playbooks from this file]
requirements: [enabled with ANSIBLE_CALLBACKS_ENABLED=results_file]
'''


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'notification'
    CALLBACK_NAME = 'results_file'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super(CallbackModule, self).__init__()
        self.plays = []

    def v2_playbook_on_play_start(self, play):
        self.plays.append({'play': {'name': play.get_name()}, 'tasks': [], 'start': time.time()})

    def v2_playbook_on_task_start(self, task, is_conditional):
        self.plays[-1]['tasks'].append({'task': {'name': task.get_name()}, 'hosts': {},
                                        'start': time.time()})

    def _record(self, result, **extra):
        entry = dict(result._result)
        entry.update(extra)
        self.plays[-1]['tasks'][-1]['hosts'][result._host.get_name()] = entry

    def v2_runner_on_ok(self, result):
        self._record(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, failed=True)

    def v2_runner_on_skipped(self, result):
        self._record(result, skipped=True)

    def v2_runner_on_unreachable(self, result):
        self._record(result, unreachable=True)

    def v2_playbook_on_stats(self, stats):
        with open(os.environ['TUNER_ANSIBLE_RESULTS'], 'w') as f:
            json.dump({'plays': self.plays, 'end': time.time()}, f, indent=2, default=str)
