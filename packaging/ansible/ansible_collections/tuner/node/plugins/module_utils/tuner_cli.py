# -*- coding: utf-8 -*-
# Copyright: 2026 the tuner authors
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
# Shared by the tuner.node modules: find the tuner binary, run it with an argument
# vector (never a shell), parse its JSON documents (DESIGN.md's contracts), and say so
# plainly when a document is not of the shape this collection reads: a node's tuner and
# the collection can be of different versions.

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json
import os


class UnexpectedDocument(Exception):
    """A document of another shape than this collection reads."""


def find_binary(module, binary):
    """The tuner executable: a path as it is, a bare name looked up in PATH."""
    if os.sep in binary:
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            module.fail_json(msg='tuner binary %s is not an executable file' % binary)
        return binary
    return module.get_bin_path(binary, required=True)


def expect(value, kind, what):
    """value if it is a kind (a type or a tuple of types), else UnexpectedDocument."""
    if not isinstance(value, kind):
        raise UnexpectedDocument('%s is %s' % (what, json.dumps(value)[:200]))
    return value


def member(doc, key, kind, what):
    """doc[key], which must be a kind; UnexpectedDocument names what is missing."""
    expect(doc, dict, what)
    if key not in doc:
        raise UnexpectedDocument('%s has no "%s"' % (what, key))
    return expect(doc[key], kind, '"%s" of %s' % (key, what))


def describe(error):
    """An exception met while reading a document, as a sentence's end."""
    if isinstance(error, UnexpectedDocument):
        return str(error)
    if isinstance(error, KeyError):
        return 'no field %s' % error
    return '%s (%s)' % (error, type(error).__name__)


def message_of(error):
    """An error entry of a tuner document: {"message", ...} objects, or an older
    tuner's plain strings; anything else as JSON."""
    if isinstance(error, dict) and isinstance(error.get('message'), str):
        where = error.get('probe') or error.get('knob')
        if where and not error['message'].startswith(where):
            return '%s: %s' % (where, error['message'])
        return error['message']
    if isinstance(error, str):
        return error
    return json.dumps(error)


class Tuner(object):
    """Runs the tuner binary with an argument vector and parses its JSON."""

    def __init__(self, module, binary, global_args):
        self.module = module
        self.binary = binary
        self.global_args = global_args
        self.cmds = []
        self.rc = None
        self.stdout = None
        self.stderr = None

    def run(self, command, args):
        argv = [self.binary, command] + self.global_args + args
        self.cmds.append(argv)
        rc, out, err = self.module.run_command(argv, check_rc=False)
        self.rc, self.stdout, self.stderr = rc, out, err
        doc = None
        if out.strip():
            try:
                doc = json.loads(out)
            except ValueError:
                doc = None
        return rc, doc, out, err

    def fail(self, rc, doc, out, err, **extra):
        """Fails the task with tuner's own message: its stderr, else the errors of its
        JSON report, else what it printed."""
        msg = err.strip()
        if not msg and isinstance(doc, dict) and doc.get('schema') == 'tuner.error/1':
            msg = str(doc.get('message', ''))
        if not msg and isinstance(doc, dict) and isinstance(doc.get('errors'), list):
            msg = '; '.join(message_of(e) for e in doc['errors'])
        if not msg and doc is None:
            msg = out.strip()
        self.module.fail_json(msg=msg or 'tuner exited with code %d' % rc, rc=rc,
                              stdout=out, stderr=err, cmd=self.cmds, **extra)

    def unexpected(self, error, **extra):
        """Fails the task: the last command printed a document this module cannot
        read."""
        command = ' '.join(self.cmds[-1][1:2]) if self.cmds else 'tuner'
        self.module.fail_json(
            msg='tuner printed an unexpected document: %s (tuner %s; are tuner and the '
                'tuner.node collection of matching versions?)' % (describe(error), command),
            rc=self.rc, stdout=self.stdout, stderr=self.stderr, cmd=self.cmds, **extra)

    def run_json(self, command, args, schema, ok=(0,)):
        """tuner COMMAND ARGS whose exit code is in ok and whose stdout is a document
        of schema; else the task fails."""
        rc, doc, out, err = self.run(command, args)
        if rc not in ok:
            self.fail(rc, doc, out, err)
        if not isinstance(doc, dict):
            self.module.fail_json(msg='tuner %s printed no JSON document' % command, rc=rc,
                                  stdout=out, stderr=err, cmd=self.cmds)
        if doc.get('schema') != schema:
            self.unexpected(UnexpectedDocument(
                'schema %s where %s was expected' % (json.dumps(doc.get('schema')), schema)))
        return doc


def unwritten_groups(plan, verify, benchmarks):
    """The groups of a tuner.plan/1 a real `tuner apply` leaves as they are, so that check
    mode does not count their changes: those the class decisions skip (plan
    --decisions); with verify, unless the class decision writes them, those this node's
    verify loop rolled back from these same values (`rejected_here`: verified again,
    they go back again) and, without benchmarks of the task's own, those no benchmark
    measures that are not kept when neutral (`decided_by.by` left_out: never written).
    A tuner whose plan lacks the fields leaves out the skipped ones only."""
    out = set()
    for g in plan.get('groups', []):
        action = (g.get('class_decision') or {}).get('action')
        if action == 'skip':
            out.add(g['name'])
        elif verify and action != 'write':
            left_out = not benchmarks and (g.get('decided_by') or {}).get('by') == 'left_out'
            if g.get('rejected_here') or left_out:
                out.add(g['name'])
    return out
