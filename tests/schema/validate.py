#!/usr/bin/env python3
"""Validates tuner's JSON documents against the schemas in schemas/.

    validate.py FILE...        each FILE's "schema" field names its schema
    validate.py - < FILE       one document from stdin

Exit 0 when every document is valid; 1 with each violation (file, JSON path, why);
2 on bad usage or a missing schema. Needs python3-jsonschema (Debian 12: 4.10).
"""
import json
import os
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = os.path.join(HERE, '..', '..', 'schemas')


def load_schemas():
    store = {}
    for name in sorted(os.listdir(SCHEMAS)):
        if name.endswith('.schema.json'):
            with open(os.path.join(SCHEMAS, name)) as f:
                store[name] = json.load(f)
    return store


def validator_for(store, name):
    schema = store[name]
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    try:  # jsonschema >= 4.18
        from referencing import Registry, Resource
        registry = Registry().with_resources(
            (s['$id'], Resource.from_contents(s)) for s in store.values())
        return cls(schema, registry=registry)
    except (ImportError, TypeError):  # Debian 12's 4.10: no registry
        resolver = jsonschema.RefResolver.from_schema(
            schema, store={s['$id']: s for s in store.values()})
        return cls(schema, resolver=resolver)


def schema_file(doc):
    tag = doc.get('schema') if isinstance(doc, dict) else None
    if not isinstance(tag, str) or '/' not in tag:
        return None
    return tag.replace('/', '-') + '.schema.json'  # tuner.run/1 -> tuner.run-1.schema.json


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    store = load_schemas()
    bad = 0
    for path in argv[1:]:
        text = sys.stdin.read() if path == '-' else open(path, encoding='utf-8').read()
        try:
            doc = json.loads(text)
        except ValueError as e:
            print('%s: not JSON: %s' % (path, e))
            bad += 1
            continue
        name = schema_file(doc)
        if name not in store:
            print('%s: no schema for %r in %s' % (path, doc.get('schema') if isinstance(doc, dict) else None, SCHEMAS))
            return 2
        errors = sorted(validator_for(store, name).iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors[:20]:
            where = '/'.join(str(p) for p in e.absolute_path) or '(top)'
            print('%s: %s: %s: %s' % (path, name, where, e.message[:300]))
        bad += bool(errors)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
