#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: 2026 the tuner authors
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
# tuner_facts: what `tuner probe --json` says about the node, as Ansible facts.

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: tuner_facts
short_description: Describe a node with tuner's probe (topology, NUMA, IRQs, NICs, sysctls)
version_added: "0.1.0"
description:
  - Runs C(tuner probe --json) on the managed node and returns its C(tuner.probe/1)
    document as the fact C(ansible_facts.tuner) (also C(ansible_tuner) while facts are
    injected as variables).
  - The probe only reads; it needs no root, though some values (IRQ affinities of
    other users' devices) may read as null without it.
  - The node's hardware class (C(class) of the probe, its key and the facts it is
    computed from) is also returned as the fact C(ansible_facts.tuner_class), the key
    that groups nodes for class decisions (tuner's C(docs/fleet-decisions.md)).
  - A probe that failed adds an entry to the document's C(errors) list; the rest still
    reports, and each entry becomes a warning.
author:
  - tuner maintainers (!UNKNOWN)
requirements:
  - the C(tuner) binary on the managed node (in C(PATH) or given by I(binary))
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
  platform:
    platforms: posix
options:
  binary:
    description:
      - The tuner executable. A bare name is looked up in C(PATH) (and the sbin
        directories); a path is used as it is.
    type: path
    default: tuner
  root:
    description:
      - Probe a captured C(/proc) and C(/sys) tree under this directory on the managed
        node instead of the live system (C(--root)).
      - Mutually exclusive with I(topology).
    type: path
  class_label:
    description:
      - Add this label to the node's hardware class (C(--class-label)), the operator's
        own split (a rack, a switch generation), which changes the class key.
    type: str
  topology:
    description:
      - Load the topology from a hwloc XML export on the managed node (C(--topology));
        host facts are null then.
      - Mutually exclusive with I(root).
    type: path
seealso:
  - module: tuner.node.tuner
'''

EXAMPLES = r'''
- name: Gather tuner's facts
  tuner.node.tuner_facts:

- name: Show the NIC drivers
  ansible.builtin.debug:
    msg: "{{ ansible_facts.tuner.nics | map(attribute='driver') | list }}"

- name: The node's hardware class, with the rack as a label
  tuner.node.tuner_facts:
    class_label: "{{ rack }}"

- name: Group the nodes by class key
  ansible.builtin.group_by:
    key: "tuner_class_{{ ansible_facts.tuner_class.key }}"

- name: Probe a captured machine kept on the node
  tuner.node.tuner_facts:
    root: /srv/captures/node17
    binary: /usr/local/bin/tuner
'''

RETURN = r'''
ansible_facts:
  description: Facts added to the host.
  returned: always
  type: complex
  contains:
    tuner:
      description:
        - The C(tuner.probe/1) document of C(tuner probe --json), as tuner's DESIGN.md
          describes it, with C(schema), C(host), C(topology), C(nics), C(irqs),
          C(sysctls), C(cpufreq) and C(errors). Unknown values are null.
      returned: always
      type: dict
      sample:
        schema: tuner.probe/1
        host:
          hostname: node17
          kernel: 6.1.0-27-amd64
          cpu_model: AMD EPYC 7B13
          cpu_vendor: AuthenticAMD
          virtualized: false
          hypervisor: null
          isolcpus: ""
          nohz_full: ""
          irqbalance_running: true
          nvidia_driver: "550.54.15"
          initial_net_namespace: true
          other_net_namespaces: 0
        topology:
          packages: 1
          cores: 2
          pus: 2
          numa_nodes: [{os_index: 0, cpus: 0-1, memory_bytes: 13650579456, free_bytes: 4942229504}]
        nics:
          - name: eth0
            driver: virtio_net
            pci: "0000:00:03.0"
            numa_node: 0
            irqs: [37, 38, 39]
            link: {up: true, autoneg: false, speed_mbps: null, duplex: null, supported_modes: []}
        irqs: [{irq: 37, name: virtio1-config, device: eth0, affinity: 0-1, effective_affinity: "0"}]
        sysctls: {net.core.somaxconn: "4096"}
        cpufreq: []
        errors: []
        class:
          key: hw-2a601a232e4811c9
          facts: {cpu_model: AMD EPYC 7B13, kernel: 6.1.0-27-amd64, label: rack-a17, pus: "2"}
    tuner_class:
      description:
        - The node's hardware class, C(class) of the probe, C(key) (C(hw-) and 16 hex
          digits; equal facts give an equal key) and the C(facts) it is computed from.
        - Null when the node's tuner prints no class (older than the class decisions).
      returned: always
      type: dict
      sample:
        key: hw-2a601a232e4811c9
        facts: {cpu_model: AMD EPYC 7B13, kernel: 6.1.0-27-amd64, label: rack-a17, pus: "2"}
cmd:
  description: The argument vector tuner was run with.
  returned: always
  type: list
  elements: str
  sample: [/usr/bin/tuner, probe, --color, never, --json]
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tuner.node.plugins.module_utils.tuner_cli import (
    Tuner, UnexpectedDocument, describe, expect, find_binary, member, message_of)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            binary=dict(type='path', default='tuner'),
            root=dict(type='path'),
            topology=dict(type='path'),
            class_label=dict(type='str'),
        ),
        mutually_exclusive=[('root', 'topology')],
        supports_check_mode=True,
    )
    p = module.params
    args = ['--json']
    if p['root']:
        args += ['--root', p['root']]
    if p['topology']:
        args += ['--topology', p['topology']]
    if p['class_label'] is not None:
        args += ['--class-label', p['class_label']]
    tuner = Tuner(module, find_binary(module, p['binary']), ['--color', 'never'])
    probe = tuner.run_json('probe', args, 'tuner.probe/1')
    try:
        errors = expect(probe.get('errors') or [], list, '"errors" of the probe')
        cls = probe.get('class')
        if cls is not None:
            member(cls, 'key', str, '"class" of the probe')
    except UnexpectedDocument as e:
        module.fail_json(msg='tuner printed an unexpected document: %s' % describe(e),
                         cmd=tuner.cmds[-1])
    # Each {probe, message} as "probe: message", as tuner's own text output says it.
    for error in errors:
        module.warn('tuner probe: %s' % message_of(error))
    module.exit_json(changed=False,
                     ansible_facts={'ansible_tuner': probe, 'ansible_tuner_class': cls},
                     cmd=tuner.cmds[-1])


if __name__ == '__main__':
    main()
