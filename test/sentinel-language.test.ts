// The Sentinel language as src/sentinel evaluates it, policy by small policy (none from the corpus).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluatePolicy, parse, type EvaluateOptions } from '../src/sentinel/index.ts';

const run = (source: string, options: Partial<EvaluateOptions> = {}) => evaluatePolicy({ source, filename: 'p.sentinel', ...options });

/** The value of `expr` as a rule's value after `prelude` (JSON-like), failing on errors. */
function value(expr: string, prelude = ''): unknown {
  const r = run(`${prelude}\nresult = rule { ${expr} }\nmain = rule { true }`, { evaluateRules: ['result'] });
  assert.equal(r.error, undefined, r.error && `${r.error.line}:${r.error.column}: ${r.error.message}`);
  return r.rules.result;
}

function errorOf(source: string, options: Partial<EvaluateOptions> = {}) {
  const r = run(source, options);
  assert.ok(r.error, 'expected an error');
  assert.equal(r.result, undefined);
  return r.error;
}

describe('sentinel: lexer and parser errors carry file:line:column', () => {
  it('reports an unterminated string at its opening quote', () => {
    assert.deepEqual(errorOf('a = 1\nx = "abc\nmain = rule { true }'), {
      kind: 'error',
      message: 'string literal not terminated',
      file: 'p.sentinel',
      line: 2,
      column: 5,
    });
  });

  it('reports an unexpected character, a missing operand and a missing brace where they are', () => {
    assert.deepEqual(errorOf('x = 1 @ 2'), { kind: 'error', message: 'unexpected character "@"', file: 'p.sentinel', line: 1, column: 7 });
    const e = errorOf('main = rule {\n  1 +\n}');
    assert.equal(`${e.line}:${e.column}`, '3:1');
    assert.match(e.message, /unexpected '}', expected an expression/);
    const f = errorOf('f = func() {\n  return 1\n');
    assert.match(f.message, /expected '}', found end of file/);
  });

  it('rejects imports after other statements, return outside a function, break outside a loop', () => {
    const e = errorOf('x = 1\nimport "strings"\nmain = rule { true }');
    assert.deepEqual([e.line, e.column, e.message], [2, 1, 'imports must come before any other statement']);
    assert.match(errorOf('return 1').message, /return outside of a function/);
    assert.match(errorOf('if true { break }').message, /break outside of a for loop/);
  });

  it('parses a file once into a tree whose nodes know their positions', () => {
    const program = parse('x = 1\nmain = rule { x is 1 }', 'f.sentinel');
    assert.equal(program.body.length, 2);
    assert.deepEqual(program.body[1]!.pos, { file: 'f.sentinel', line: 2, column: 6 });
  });

  it('reports runtime errors at the construct at fault, in the file it is in', () => {
    const e = errorOf('x = 1\ny = "a" - x\nmain = rule { true }');
    assert.deepEqual([e.line, e.column, e.message], [2, 9, 'unsupported operation: string - int']);
    const m = errorOf('import "helpers"\nmain = rule { helpers.boom() }', {
      imports: { helpers: { filename: 'helpers.sentinel', source: 'boom = func() {\n  return 1 / 0\n}' } },
    });
    assert.deepEqual([m.file, m.line, m.column, m.message], ['helpers.sentinel', 2, 12, 'division by zero']);
  });
});

describe('sentinel: values and operators', () => {
  it('does int and float arithmetic with the precedence of the specification', () => {
    assert.equal(value('4 + 5 * 2 is 14 and 4 * 5 / 5 is 4 and 7 / 2 is 3 and 7 % 3 is 1 and -3 + 1 is -2'), true);
    assert.equal(value('7.0 / 2 == 3.5 and 1 + 0.5 == 1.5 and 2 == 2.0'), true);
    assert.equal(value('"ab" + "cd" is "abcd" and [1] + [2, 3] is [1, 2, 3]'), true);
    assert.equal(value('"b" > "a" and 2 >= 2 and 1 < 1.5 and not (3 <= 2)'), true);
  });

  it('compares lists and maps deeply with is, ==, is not and !=', () => {
    assert.equal(value('[1, {"a": [2]}] is [1, {"a": [2]}] and {"a": 1} != {"a": 2} and 1 is not "1"'), true);
  });

  it('tests membership with in, not in, contains, not contains, and regexes with matches', () => {
    assert.equal(value('2 in [1, 2] and 3 not in [1, 2] and "k" in {"k": 1} and [1, 2] contains 1 and "hello" contains "ell"'), true);
    assert.equal(value('[1] not contains 2 and "abc" matches "^a.c$" and "ABC" matches "(?i)abc" and "x" not matches "y"'), true);
    // RE2 spellings: POSIX classes, named groups, \\A and \\z.
    assert.equal(
      value(
        '"ab12" matches "^[[:alpha:]]+[[:digit:]]+$" and "k=v" matches "(?P<key>\\\\w+)=" and "xy" matches "\\\\Axy\\\\z" and not ("1a" matches "^[[:alpha:]]")',
      ),
      true,
    );
  });

  it('tests emptiness and definedness with is [not] empty and is [not] defined, binding tighter than and', () => {
    const prelude = 'l = [1]\nm = {}\nnothing = undefined\ndefined = "a name like any other"';
    assert.equal(value('"" is empty and "foo" is not empty and [] is empty and l is not empty and m is empty and {"a": "b"} is not empty', prelude), true);
    assert.equal(value('l is defined and nothing is not defined and m.x is not defined and [] is defined and null is defined', prelude), true);
    // `is defined` never gives undefined; `is empty` of undefined is undefined, as length's is.
    assert.equal(value('nothing is defined', prelude), false);
    assert.equal(value('nothing is empty', prelude), undefined);
    assert.equal(value('nothing is not empty', prelude), undefined);
    // A postfix operator: `x is defined and x > 0` tests x alone, then compares.
    assert.equal(value('l[0] is defined and l[0] > 0 and not m is not empty', prelude), true);
    // Only `is` followed by empty/defined is the operator: the words stay usable as names.
    assert.equal(value('defined is "a name like any other" and (defined + "!") is not empty', prelude), true);
    assert.match(errorOf('main = rule { 1 is empty }').message, /is empty: int has no length/);
  });

  it('combines bools with and, or, xor, not and !, short-circuiting', () => {
    assert.equal(value('true and not false and (false or true) and (true xor false) and !(true xor true)'), true);
    // The right side is never evaluated: it would be an error.
    assert.equal(value('false and (1 / 0 is 1)'), false);
    assert.equal(value('true or (1 / 0 is 1)'), true);
  });

  it('propagates undefined, which or and and can recover from, and else replaces', () => {
    const prelude = 'm = {"a": {"b": 1}}\nl = [1, 2]';
    assert.equal(value('m.x.y.z is undefined', prelude), undefined);
    assert.equal(value('m.x else "none"', prelude), 'none');
    assert.equal(value('m["a"]["b"] is 1 and l[5] else 0 is 0 and l[-1] is 2', prelude), true);
    assert.equal(value('undefined or true'), true);
    // The specification's table: only a false left operand saves an and from undefined.
    assert.equal(value('undefined and false'), undefined);
    assert.equal(value('true and undefined and false'), undefined);
    assert.equal(value('true and false and undefined'), false);
    assert.equal(value('false or undefined or true'), true);
    assert.equal(value('undefined or false'), undefined);
    // else binds tighter than is: (m.q else null) is null.
    assert.equal(value('m.q else null is null', prelude), true);
    const r = run('main = rule { undefined }');
    assert.equal(r.result, undefined);
    assert.equal(r.error, undefined);
  });

  it('slices lists and strings, and indexes strings', () => {
    assert.deepEqual(value('[[0, 1, 2, 3][1:3], [0, 1, 2][:1], [0, 1, 2][1:], "hello"[1:3], "hey"[0]]'), [[1, 2], [0], [1, 2], 'el', 'h']);
    // Out of range (a negative bound too) and null give undefined, as the specification says.
    assert.deepEqual(value('[[1, 2][1:5], [1, 2][-1:], "abc"[2:1], null[0:1], [1, 2][2:], [1, 2][:0]]'), [undefined, undefined, undefined, undefined, [], []]);
    assert.match(errorOf('x = 5[0:1]\nmain = rule { true }').message, /cannot slice int/);
  });

  it('has the built-in functions', () => {
    const prelude = `
l = [3]
append(l, 4)
m = {"a": 1, "b": 2}
delete(m, "a")
`;
    assert.deepEqual(value('[l, m, keys({"x": 1, "y": 2}), values({"x": 1}), length("héllo"), length(l), length(m), length(undefined)]', prelude), [
      [3, 4],
      { b: 2 },
      ['x', 'y'],
      [1],
      6, // bytes: é is two
      2,
      1,
      undefined,
    ]);
    assert.deepEqual(
      value('[range(3), range(1, 4), range(0, 10, 5), int("42"), int(3.9), float(2), string(1.5), string(7), bool("true"), int("x"), float(null)]'),
      [[0, 1, 2], [1, 2, 3], [0, 5], 42, 3, 2, '1.500000', '7', true, undefined, undefined],
    );
    assert.deepEqual(
      value(
        '[compare(1, 4), compare(4, 4), compare(4, 1), compare(1.5, 4.0), compare(2, 1.5), compare(4.0, 4), compare("apple", "banana"), compare("b", "b"), compare("b", "B"), compare(undefined, 1)]',
      ),
      [-1, 0, 1, -1, 1, 0, -1, 0, 1, undefined],
    );
    assert.match(errorOf('main = rule { compare("1", 1) is 0 }').message, /compare: arguments must be two numbers or two strings, got string and int/);
    assert.match(errorOf('main = rule { compare([1], [2]) is 0 }').message, /compare: arguments must be two numbers or two strings, got list and list/);
    // A policy's own `compare` is its own, as any name it assigns.
    assert.equal(value('compare(1, 2)', 'compare = func(a, b) { return "mine" }'), 'mine');
  });

  it('keeps what print writes, and print returns true so a rule can use it', () => {
    const r = run('x = {"k": [1, "a"]}\nprint("x is", x, 2.5, null)\nmain = rule { print("checked") and true }');
    assert.equal(r.result, true);
    assert.deepEqual(r.prints, ['x is {"k": [1, "a"]} 2.5 null', 'checked']);
  });

  it('keeps at most 1 MiB of print output, saying so', () => {
    const r = run('s = "0123456789abcdef"\nfor range(12) as i { s = s + s }\nfor range(40) as i { print(s) }\nmain = rule { true }');
    assert.equal(r.result, true);
    assert.equal(r.prints.length, 17);
    assert.equal(r.prints.at(-1), '(print output truncated at 1048576 characters)');
  });

  it('defines globals before the policy runs', () => {
    assert.equal(run('main = rule { limit is 3 and names contains "a" }', { globals: { limit: 3, names: ['a'] } }).result, true);
  });

  it('stops with error() at its position', () => {
    const e = errorOf('x = 1\nif x is 1 {\n  error("x must not be", x)\n}\nmain = rule { true }');
    // An else operator may continue on the next line.
    assert.equal(value('a\n  else "fallback"', 'a = undefined'), 'fallback');
    assert.deepEqual([e.line, e.column, e.message], [3, 8, 'x must not be 1']);
  });
});

describe('sentinel: statements, functions and scope', () => {
  it('skips an if whose condition is undefined (running its else), and reads one that is not a bool as undefined', () => {
    const src = 'value = {}\nhit = "no"\nif value["key"] > 12 { hit = "then" } else { hit = "else" }\nmain = rule { hit is "else" }';
    assert.equal(run(src).result, true);
    // The specification's Boolean Expressions: "Any other value type becomes the undefined value."
    assert.equal(run('hit = "no"\nif 1 { hit = "then" } else { hit = "else" }\nmain = rule { hit is "else" }').result, true);
  });

  it('runs if / else if / else and case with and without a subject', () => {
    const src = `
grade = func(n) {
  if n >= 90 { return "a" } else if n >= 50 { return "b" } else { return "c" }
}
kind = func(v) {
  case v {
    when 1, 2:
      return "small"
    when "x":
      return "letter"
    else:
      return "other"
  }
}
sign = func(n) {
  case {
    when n < 0:
      return -1
    when n > 0:
      return 1
  }
  return 0
}
main = rule { [grade(95), grade(60), grade(1), kind(2), kind("x"), kind([]), sign(-4), sign(0)] is ["a", "b", "c", "small", "letter", "other", -1, 0] }`;
    assert.equal(run(src).result, true);
  });

  it('loops over lists and maps with break and continue; for opens a scope, if does not', () => {
    const src = `
total = 0
for [1, 2, 3, 4, 5] as i, v {
  if v is 2 { continue }
  if v is 5 { break }
  total += v
  inner = true
}
pairs = []
for {"a": 1, "b": 2} as k, v { append(pairs, k + string(v)) }
if true { made_in_if = 1 }
main = rule { total is 8 and pairs is ["a1", "b2"] and inner else "gone" is "gone" and made_in_if is 1 }`;
    const r = run(src);
    assert.equal(r.error, undefined);
    assert.equal(r.result, true);
  });

  it('gives functions their own scope that can modify variables of the scope they were made in (closures)', () => {
    const src = `
a = 1
f = func() {
  a = 12
  b = 1
  return undefined
}
f()
counter = func() {
  n = 0
  return func() {
    n += 1
    return n
  }
}
c = counter()
c()
c()
func add(x, y) { return x + y }
fact = func(n) { if n <= 1 { return 1 } return n * fact(n - 1) }
main = rule { a is 12 and (b else "local") is "local" and c() is 3 and add(2, 3) is 5 and fact(10) is 3628800 }`;
    const r = run(src);
    assert.equal(r.error, undefined);
    assert.equal(r.result, true);
  });

  it('refuses to reassign a named function, lets it be called above its declaration, and checks the argument count', () => {
    assert.match(errorOf('func f() { return 1 }\nf = 2\nmain = rule { true }').message, /cannot assign to f/);
    assert.match(errorOf('f = 2\nfunc f() { return 1 }\nmain = rule { true }').message, /cannot assign to f/);
    assert.equal(run('x = twice(2)\nfunc twice(n) { return n * 2 }\nmain = rule { x is 4 }').result, true);
    assert.match(errorOf('f = func(a) { return a }\nx = f(1, 2)\nmain = rule { true }').message, /takes 1 argument\(s\), got 2/);
  });

  it('assigns into maps and lists by index and selector', () => {
    assert.equal(value('m.a is 1 and m["b"] is [9, 2]', 'm = {}\nm.a = 1\nm["b"] = [1, 2]\nm["b"][0] = 9'), true);
  });
});

describe('sentinel: quantifiers', () => {
  it('reads a quantifier word not followed by `COLLECTION as` as a name, as the language pages do with `map`', () => {
    const prelude = 'map = { "key": "value", 42: true, }\nmap[43] = false\nfilter = [1, 2]';
    assert.deepEqual(value('[map["key"], map[42], map[0], map[43], filter[1], map [1, 2] as v { v * 2 }, length(filter filter as v { v > 1 })]', prelude), [
      'value',
      true,
      undefined,
      false,
      2,
      [2, 4],
      1,
    ]);
    assert.match(errorOf('x = map [1, 2] as { v }\nmain = rule { true }').message, /expected/);
  });

  it('evaluates all, any, filter and map over lists and maps', () => {
    const prelude = 'l = [1, 2, 3]\nm = {"a": 1, "b": 2}';
    assert.equal(
      value('all l as v { v > 0 } and not all l as v { v > 1 } and any l as v { v is 3 } and not any [] as v { true } and all [] as v { false }', prelude),
      true,
    );
    assert.deepEqual(value('[filter l as v { v >= 2 }, filter m as k, v { v is 2 }, map l as i, v { i * v }, map m as k, v { k }]', prelude), [
      [2, 3],
      { b: 2 },
      [0, 2, 6],
      ['a', 'b'],
    ]);
    assert.equal(value('all m as k, v { k in ["a", "b"] and v < 3 }', prelude), true);
  });

  it('is undefined over an undefined collection, and opens a scope for its variables', () => {
    assert.equal(value('all nothing.here as v { true }', 'nothing = {}'), undefined);
    assert.equal(value('(v else "unset") is "unset"', 'x = any [1] as v { v is 1 }'), true);
  });
});

describe('sentinel: rules', () => {
  it('evaluates a rule only when it is referenced, once', () => {
    const src = `
never = rule { 1 / 0 }
counted = rule { print("evaluated") }
main = rule { counted and counted and counted }`;
    const r = run(src);
    assert.equal(r.error, undefined);
    assert.equal(r.result, true);
    assert.deepEqual(r.prints, ['evaluated']);
    assert.deepEqual(r.rules, { counted: true, main: true });
  });

  it('applies when predicates: a rule whose predicate is false is true', () => {
    const src = `
is_prod = false
strict = rule when is_prod { false }
checked = rule when not is_prod { 1 is 2 }
main = rule { strict and not checked }`;
    const r = run(src);
    assert.deepEqual([r.result, r.rules], [true, { strict: true, checked: false, main: true }]);
  });

  it('evaluates rules a caller asks for even when main did not need them', () => {
    const r = run('a = rule { false }\nb = rule { true }\nmain = rule { a and b }', { evaluateRules: ['b'] });
    assert.deepEqual(r.rules, { a: false, b: true, main: false });
  });

  it('reports a policy without main; a main that is not a bool passes when it is zero or empty', () => {
    assert.match(errorOf('x = 1').message, /no main rule/);
    const outcomes = ['[]', '[1]', '{}', '{"a": 1}', '""', '"x"', '0', '3', '0.0', '0.5'].map((v) => {
      const r = run(`main = rule { ${v} }`);
      assert.equal(r.error, undefined, r.error?.message);
      return r.result;
    });
    assert.deepEqual(outcomes, [true, false, true, false, true, false, true, false, true, false]);
    // The language's own example: main lists the days that break the policy.
    const days = 'param days\nmain = rule { filter days as d { d.day not in ["saturday", "sunday"] and d.homework is not "" } }';
    assert.equal(run(days, { params: { days: [{ day: 'sunday', homework: 'x' }] } }).result, true);
    assert.equal(run(days, { params: { days: [{ day: 'monday', homework: 'x' }] } }).result, false);
    assert.match(errorOf('main = null').message, /main must be a bool, string, number, list or map, got null/);
    // A rule's result is checked as it is evaluated (the language's rules page), main's too.
    assert.match(errorOf('main = rule { null }').message, /a rule's result must be a bool, string, int, float, list or map, got null/);
  });
});

describe('sentinel: parameters', () => {
  const src = 'param limit default 5\nparam names\nmain = rule { length(names) <= limit }';
  it('uses the default unless the caller gives a value', () => {
    assert.equal(run(src, { params: { names: ['a', 'b'] } }).result, true);
    assert.equal(run(src, { params: { names: ['a', 'b'], limit: 1 } }).result, false);
  });
  it('fails on a parameter with neither value nor default', () => {
    const e = errorOf(src);
    assert.deepEqual([e.line, e.column, e.message], [2, 1, 'no value given for parameter names, which has no default']);
  });
});

describe('sentinel: imports', () => {
  it('provides strings, types, json, units, decimal, version and time', () => {
    const src = `
import "strings"
import "types"
import "json"
import "units"
import "decimal"
import "version"
import "time" as clock
checks = [
  strings.has_prefix("terraform", "terra"), strings.has_suffix("a.tf", ".tf"),
  strings.split("a,b", ",") is ["a", "b"], strings.join(["a", "b"], "-") is "a-b",
  strings.to_upper("x") is "X", strings.trim_space("  y ") is "y", strings.trim_prefix("v1.2", "v") is "1.2",
  strings.replace("aaa", "a", "b", -1) is "bbb", strings.replace("foofoo", "foo", "x") is "xx", strings.replace("foofoo", "foo", "x", 1) is "xfoo",
  strings.join([["a", "b"], "c", 1, 1.5, true], ",") is "a,b,c,1,1.5,true",
  types.type_of(1) is "int", types.type_of(1.5) is "float", types.type_of({}) is "map", types.type_of(undefined) is "undefined",
  json.unmarshal("{\\"a\\": [1, 2.5]}") is {"a": [1, 2.5]}, json.marshal({"b": 1, "a": [true]}) is "{\\"a\\":[true],\\"b\\":1}",
  units.gigabyte is 1073741824,
  decimal.new("0.1").add(0.2).is(0.3), decimal.new(10).divide(4).string is "2.5", decimal.new(1).greater_than(0.5),
  version.new("1.2.3").greater_than("1.2.0"), version.new("1.4.0").satisfies("~> 1.2"), not version.new("2.0.0").satisfies(">= 1.0, < 2.0"),
  version.new("1.0.0-beta").less_than("1.0.0"), version.new("v3.1.4").major is 3,
  clock.now.year is 2030, clock.now.month is 6, clock.now.day is 15,
]
main = rule { all checks as i, c { c } }`;
    const r = run(src, { now: new Date('2030-06-15T12:00:00Z') });
    assert.equal(r.error, undefined, r.error?.message);
    assert.equal(r.result, true);
  });

  it('provides base64 (standard and URL alphabets, both padded, strict decoding) and runtime', () => {
    const src = `
import "base64"
import "runtime"
import "strings"
import "version"
checks = [
  base64.encode("foo") is "Zm9v", base64.encode("fo") is "Zm8=", base64.encode("") is "",
  base64.decode("Zm9v") is "foo", base64.decode("Zm8=") is "fo", base64.decode("Zm9v\\nYmFy") is "foobar",
  base64.encode("ü?>") is "w7w/Pg==", base64.urlencode("ü?>") is "w7w_Pg==", base64.urldecode("w7w_Pg==") is "ü?>",
  base64.decode(base64.encode("héllo, wörld")) is "héllo, wörld",
  (base64.encode(undefined) else "none") is "none",
  strings.has_prefix(runtime.version, "0."), version.new(runtime.version).greater_than_or_equal("0.18.0"),
]
main = rule { all checks as i, c { c } }`;
    const r = run(src);
    assert.equal(r.error, undefined, r.error?.message);
    assert.equal(r.result, true);
    for (const bad of ['"Zm9"', '"Zm9v="', '"Zm*v"', '"w7w_Pg=="']) {
      assert.match(errorOf(`import "base64"\nmain = rule { base64.decode(${bad}) is "" }`).message, /base64\.decode: illegal base64 data/, bad);
    }
    assert.match(errorOf(`import "base64"\nmain = rule { base64.urldecode("w7w/Pg==") is "" }`).message, /base64\.urldecode: illegal base64 data/);
    assert.match(errorOf(`import "base64"\nmain = rule { base64.encode(1) is "" }`).message, /base64\.encode: arguments must be strings/);
    // Its result is held to the language's longest string, as a concatenation's is.
    assert.match(
      errorOf(`import "base64"\nimport "strings"\nmain = rule { base64.encode(strings.repeat("a", 13000000)) is "" }`).message,
      /base64\.encode: result longer than 16777216 characters/,
    );
  });

  it('provides collection: filter, reject, find, matches and reduce over lists and maps', () => {
    const src = `
import "collection"
evens = func(el) { return el % 2 is 0 }
checks = [
  collection.filter([2, 3, 4, 5, 6, 7, 8], evens) is [2, 4, 6, 8],
  collection.reject([2, 3, 4, 5, 6, 7, 8], evens) is [3, 5, 7],
  collection.filter(["a", "b", "c"], func(el, i) { return i > 0 }) is ["b", "c"],
  collection.filter({"x": 1, "y": 2}, func(v, k) { return k is "y" }) is [2],
  collection.reject([1, 2], func(el) { return undefined }) is [1, 2],
  collection.find(["foo", "bar", "qux"], func(el) { return el is "bar" }) is "bar",
  collection.find({"foo": 2, "bar": 4}, func(el, key) { return key is "bar" }) is 4,
  collection.find([1, 2], func(el) { return el > 5 }) is not defined,
  collection.matches([{"foo": {"bar": "wip"}, "baz": "qux"}, {"foo": "bar", "baz": "bar"}, 7], {"foo": {"bar": "wip"}}) is [{"foo": {"bar": "wip"}, "baz": "qux"}],
  collection.matches([{"a": 1}], {"a": 2}) is empty,
  collection.reduce([1, 2, 3, 4, 5], func(acc, el) { return acc + el }, 0) is 15,
  collection.reduce(["a", "b"], func(acc, el, i) { return acc + el + string(i) }) is "ab1",
  collection.reduce({"x": 1, "y": 2}, func(acc, v, k) { return acc + [k] }, []) is ["x", "y"],
  collection.reduce([], func(acc, el) { return acc + el }) is not defined,
  collection.filter(undefined, evens) is not defined,
]
main = rule { all checks as i, c { c } }`;
    const r = run(src);
    assert.equal(r.error, undefined, r.error?.message);
    assert.equal(r.result, true);
    assert.match(
      errorOf('import "collection"\nmain = rule { collection.filter(5, func(x) { return true }) is empty }').message,
      /collection\.filter: items must be a list or a map, got int/,
    );
    assert.match(
      errorOf('import "collection"\nmain = rule { collection.find([1], func(a, b, c) { return true }) is 1 }').message,
      /takes 3 argument\(s\), got 2/,
    );
    assert.match(errorOf('import "collection"\nmain = rule { collection.matches([1], 1) is empty }').message, /partial must be a map/);
    // A predicate is the policy's own code: the step limit bounds it like any other.
    const e = errorOf(
      'import "collection"\nx = collection.filter(range(1000), func(el) { for range(1000) as i { el += i }\n return true })\nmain = rule { true }',
      {
        limits: { maxSteps: 100_000 },
      },
    );
    assert.equal(e.kind, 'limit');
  });

  it('provides collection/lists: concat, difference (diff), intersection, union, sort and sum', () => {
    const src = `
import "collection/lists" as lists
checks = [
  lists.concat([1], [2, 3]) is [1, 2, 3], lists.concat([1, 2], [10, 20], [100, 200]) is [1, 2, 10, 20, 100, 200],
  lists.difference([1, 2], [2, 3]) is [1], lists.difference([1, 2, 3, 4, 5], [2, 5], [1]) is [3, 4], lists.diff([{"a": 1}, 2], [{"a": 1}]) is [2],
  lists.intersection([1, 2], [2, 3], [3, 2]) is [2], lists.intersection([1, 1, 2], [1]) is [1],
  lists.union([1, 3], [2, 3, 5], [6, 2, 1]) is [1, 3, 2, 5, 6],
  lists.sort(["zebra", "bat", "horse"], func(x, y) { return compare(x, y) }) is ["bat", "horse", "zebra"],
  lists.sort([{"foo": 8}, {"foo": 4}, {"foo": 100}], func(x, y) { return compare(x.foo, y.foo) }) is [{"foo": 4}, {"foo": 8}, {"foo": 100}],
  lists.sort([{"k": 1, "n": "a"}, {"k": 0, "n": "b"}, {"k": 1, "n": "c"}], func(x, y) { return compare(x.k, y.k) }) is [{"k": 0, "n": "b"}, {"k": 1, "n": "a"}, {"k": 1, "n": "c"}],
  lists.sort([3, 1, 2], func(x, y) { return y - x }) is [3, 2, 1],
  lists.sum([2, 5, 10, 500]) is 517, lists.sum([0.5, 1]) is 1.5, lists.sum([]) is 0,
  lists.concat([1], undefined) is not defined,
]
main = rule { all checks as i, c { c } }`;
    const r = run(src);
    assert.equal(r.error, undefined, r.error?.message);
    assert.equal(r.result, true);
    // sum always answers a float, as Sentinel documents.
    assert.equal(value('types.type_of(lists.sum([1, 2]))', 'import "collection/lists" as lists\nimport "types"'), 'float');
    assert.match(
      errorOf('import "collection/lists" as lists\nmain = rule { lists.concat([1]) is [1] }').message,
      /concat takes at least 2 argument\(s\), got 1/,
    );
    assert.match(errorOf('import "collection/lists" as lists\nmain = rule { lists.union([1], "a") is [1] }').message, /arguments must be lists, got string/);
    assert.match(errorOf('import "collection/lists" as lists\nmain = rule { lists.sum([1, "2"]) is 3 }').message, /elements must be numbers, got string/);
    assert.match(
      errorOf('import "collection/lists" as lists\nmain = rule { lists.sort([2, 1], func(a, b) { return a > b }) is [1, 2] }').message,
      /sort function must return -1, 0 or 1, got bool/,
    );
  });

  it('provides collection/maps: get, has, pick, omit, set and unset by path, never changing their input', () => {
    const src = `
import "collection/maps" as maps
obj = {"foo": "bar", "baz": [{"qux": 4}, {"qux": 10}], "nit": {"nat": "pak"}}
before = obj
checks = [
  maps.get({"foo": "bar"}, "foo") is "bar", maps.get({"foo": [{"bar": {"baz": 4}}]}, "foo.0.bar.baz") is 4,
  maps.get({"foo": [{"bar": 4}, {"bar": 8}, {"bar": 45}]}, "foo.*.bar") is [4, 8, 45],
  maps.get({}, "foo", "bar") is "bar", maps.get({}, "foo") is not defined, maps.get({"a": null}, "a", 1) is null,
  maps.get(undefined, "a.b", []) is [], maps.get(null, "a", "d") is "d", maps.get({"l": [1]}, "l.5", "d") is "d",
  maps.has({"foo": "bar"}, "foo"), maps.has({}, "foo") is false, maps.has({"a": {"b": null}}, "a.b"),
  maps.pick({"foo": "bar", "baz": "qux", "nit": "nat"}, ["foo", "baz"]) is {"foo": "bar", "baz": "qux"},
  maps.pick(obj, ["baz.1.qux", "nit.nat"]) is {"baz": [{"qux": 10}], "nit": {"nat": "pak"}},
  maps.pick(obj, ["missing", "baz.*.qux"]) is {"baz": [{"qux": 4}, {"qux": 10}]},
  maps.omit({"foo": "bar", "baz": "qux", "nit": "nat"}, ["foo", "baz"]) is {"nit": "nat"},
  maps.omit(obj, ["baz.1.qux", "nit.nat"]) is {"foo": "bar", "baz": [{"qux": 4}]},
  maps.set({"foo": "bar"}, "foo", "qux") is {"foo": "qux"}, maps.set({}, "foo.bar.baz", 10) is {"foo": {"bar": {"baz": 10}}},
  maps.set({"foo": [2, 5]}, "foo.0", 10) is {"foo": [10, 5]},
  maps.set({"foo": [{"bar": true}, {"bar": false}]}, "foo.*.bar", true) is {"foo": [{"bar": true}, {"bar": true}]},
  maps.unset({"foo": {"bar": {"baz": 10, "qux": 15}}}, "foo.bar.baz") is {"foo": {"bar": {"qux": 15}}},
  maps.unset({"foo": [2, 5]}, "foo.0") is {"foo": [5]},
  maps.unset({"foo": [{"bar": true}, {"bar": false}]}, "foo.*", true) is {"foo": []},
  obj is before, obj.nit is {"nat": "pak"}, length(obj.baz) is 2,
]
main = rule { all checks as i, c { c } }`;
    const r = run(src);
    assert.equal(r.error, undefined, r.error?.message);
    assert.equal(r.result, true);
    // Data from a mock or a plan is read lazily; paths reach into it like into any map.
    const plan = run(
      'import "collection/maps" as maps\nimport "plan"\nmain = rule { maps.get(plan.r, "values.tags.env") is "prod" and maps.get(plan.r, "values.ids.*") is [1, 2] }',
      {
        imports: { plan: { data: { r: { values: { tags: { env: 'prod' }, ids: [1, 2] } } } } },
      },
    );
    assert.equal(plan.error, undefined, plan.error?.message);
    assert.equal(plan.result, true);
    assert.match(errorOf('import "collection/maps" as maps\nmain = rule { maps.get({}, 1) is 1 }').message, /path must be a string, got int/);
    assert.match(errorOf('import "collection/maps" as maps\nmain = rule { maps.set([1], "0", 2) is [2] }').message, /object must be a map, got list/);
    assert.match(errorOf('import "collection/maps" as maps\nmain = rule { maps.set({"l": [1]}, "l.3", 2) is {} }').message, /3 is not an index of a list of 1/);
    assert.match(errorOf('import "collection/maps" as maps\nmain = rule { maps.set({"s": "x"}, "s.a", 2) is {} }').message, /cannot enter string at s\.a/);
  });

  it('lets an assignment shadow an import in its own scope, the import staying everywhere else', () => {
    const src = `
import "strings"
f = func() {
  strings = "jane"
  return strings
}
inner = f()
outer = strings.to_upper("bob")
g = func() { return strings.to_lower("X") }
strings = 3
main = rule { inner is "jane" and outer is "BOB" and strings is 3 }`;
    const r = run(src);
    assert.equal(r.error, undefined, r.error?.message);
    assert.equal(r.result, true);
    assert.match(errorOf('func f() { return 1 }\ng = func() { f = 2 }\nx = g()\nmain = rule { true }').message, /cannot assign to f: it is a named function/);
  });

  it('accepts the same import repeated under the same name, and refuses a name declared twice otherwise', () => {
    assert.equal(value('strings.to_upper("a") is "A"', 'import "strings"\nimport "strings"'), true);
    const twice = errorOf('import "strings" as s\nimport "types" as s\nmain = rule { true }');
    assert.deepEqual([twice.message, twice.line], ['s is already declared', 2]);
    assert.match(errorOf('import "strings"\nparam strings\nmain = rule { true }', { params: { strings: 1 } }).message, /strings is already declared/);
  });

  it('imports modules (their top-level names are attributes) and data mocks', () => {
    const r = run('import "helpers" as h\nimport "tfplan/v2" as plan\nmain = rule { h.double(plan.count) is 6 and h.ready and h.base is 10 }', {
      imports: {
        helpers: {
          filename: 'helpers.sentinel',
          source: 'import "strings"\nbase = 10\nready = rule { strings.has_prefix("ok", "o") }\ndouble = func(n) { return n * 2 }',
        },
        'tfplan/v2': { data: { count: 3 } },
      },
    });
    assert.equal(r.error, undefined, r.error?.message);
    assert.equal(r.result, true);
  });

  it('treats data converted on first read like any other map', () => {
    const src = `
import "plan"
rc = plan.changes
copy = {"a": {"n": 1, "tags": {"x": "y"}}, "b": {"n": 2.5, "tags": {}}}
same = rc is copy
listed = [keys(rc), values(rc)[5] else "none", values(rc)[0].n, map rc as k, v { v.n }]
rc.a.n = 10
delete(rc, "b")
after = [rc, length(rc), "b" in rc]
main = rule { same }`;
    const r = run(src, { imports: { plan: { data: { changes: { a: { n: 1, tags: { x: 'y' } }, b: { n: 2.5, tags: {} } } } } }, evaluateRules: [] });
    assert.equal(r.error, undefined, r.error?.message);
    assert.equal(r.result, true);
    const probe = run(`${src}\nout = rule { [listed, after] }`, {
      imports: { plan: { data: { changes: { a: { n: 1, tags: { x: 'y' } }, b: { n: 2.5, tags: {} } } } } },
      evaluateRules: ['out'],
    });
    assert.deepEqual(probe.rules.out, [
      [['a', 'b'], 'none', 1, [1, 2.5]],
      [{ a: { n: 10, tags: { x: 'y' } } }, 1, false],
    ]);
  });

  it('refuses unknown imports and every http request', () => {
    assert.match(errorOf('import "nope"\nmain = rule { true }').message, /unknown import "nope"/);
    assert.match(errorOf('import "constructor"\nmain = rule { true }', { imports: {} }).message, /unknown import "constructor"/);
    const e = errorOf('import "http"\nr = http.get("https://example.com")\nmain = rule { true }');
    assert.equal(e.kind, 'network');
    assert.equal(e.line, 2);
  });
});

describe('sentinel: limits end runaway policies with a clear error', () => {
  it('stops an evaluation at the step limit', () => {
    const e = errorOf('n = 0\nfor range(1000) as i { for range(1000) as j { n += 1 } }\nmain = rule { true }', { limits: { maxSteps: 100_000 } });
    assert.equal(e.kind, 'limit');
    assert.match(e.message, /stopped after 100000 steps/);
  });

  it('stops an evaluation at the time limit', () => {
    const started = performance.now();
    const e = errorOf('n = 0\nfor range(100000) as i { for range(100000) as j { n += 1 } }\nmain = rule { true }', { limits: { timeoutMs: 150 } });
    assert.equal(e.kind, 'limit');
    assert.match(e.message, /stopped after 150 ms/);
    assert.ok(performance.now() - started < 3000);
  });

  it('refuses a huge list before building it, and endless recursion', () => {
    const e = errorOf('l = range(1000000000)\nmain = rule { true }', { limits: { maxSteps: 1_000_000 } });
    assert.deepEqual([e.kind, e.line, e.column], ['limit', 1, 10]);
    const r = errorOf('f = func(n) { return f(n + 1) }\nx = f(0)\nmain = rule { true }');
    assert.equal(r.kind, 'limit');
    assert.match(r.message, /call depth/);
  });

  it('refuses decimals too large to compute with', () => {
    assert.match(errorOf('import "decimal"\nd = decimal.new("1e999999999")\nmain = rule { true }').message, /decimal: value out of range/);
    assert.match(errorOf('import "decimal"\nd = decimal.new("1e6000").multiply("1e6000")\nmain = rule { true }').message, /decimal: value out of range/);
  });

  it('refuses a string doubled without end', () => {
    const e = errorOf('s = "x"\nfor range(40) as i { s = s + s }\nmain = rule { true }');
    assert.match(e.message, /string longer than/);
  });
});

// Each case below is a statement or an example of HashiCorp's Sentinel documentation (the
// language specification, the language pages, the functions and imports pages), the page named.
describe('sentinel: the specification, statement by statement', () => {
  it('accepts semicolons between statements (spec: Semicolons)', () => {
    assert.deepEqual(value('[a, b, f(1)]', 'a = 1; b = 2;;\nf = func(x) { y = x + 1; return y; }'), [1, 2, 2]);
    assert.equal(run('case_of = func(x) { case x { when 1: return "one"; else: return "other"; } }\nmain = rule { case_of(1) is "one" }').result, true);
  });

  it("refuses escapes the specification does not have: surrogate halves, past U+10FFFF, \\' and octal past a byte (spec: String Literals)", () => {
    assert.match(errorOf('x = "\\uD800"').message, /escape sequence \\uD800 is not a valid Unicode code point/);
    assert.match(errorOf('x = "\\U00110000"').message, /escape sequence \\U00110000 is not a valid Unicode code point/);
    assert.match(errorOf('x = "it\\\'s"').message, /unknown escape sequence \\'/);
    assert.match(errorOf('x = "\\400"').message, /octal escape sequence \\400 is larger than a byte/);
    assert.equal(value('"\\a\\b\\f\\v" == "\\x07\\x08\\x0c\\x0b" and "\\101\\x41\\u0041\\U00000041" == "AAAA"'), true);
  });

  it('orders values of different types as undefined, not an error (spec: Comparison Operators)', () => {
    assert.deepEqual(value('[1 < "a", "a" >= 2.5, null > 1, 1 < 1.5]'), [undefined, undefined, undefined, true]);
    assert.match(errorOf('main = rule { [1] < [2] }').message, /cannot compare list < list/);
  });

  it('orders strings byte-wise, as their UTF-8 bytes (spec: Comparison Operators)', () => {
    // U+1F600 (a surrogate pair in UTF-16) comes after U+FFFD in UTF-8, whatever UTF-16 says.
    assert.deepEqual(value('["\\uFFFD" < "\\U0001F600", compare("\\U0001F600", "\\uE000"), "ab" < "abc", "B" < "a"]'), [true, 1, true, true]);
  });

  it('declares parameters after the imports and before anything else, never named like a built-in (spec: Parameters)', () => {
    assert.match(
      errorOf('x = 1\nparam limit default 2\nmain = rule { true }').message,
      /parameters must come after the imports and before any other statement/,
    );
    assert.match(errorOf('param limit default 2\nimport "strings"\nmain = rule { true }').message, /imports must come before any other statement/);
    assert.match(errorOf('param length default 2\nmain = rule { true }').message, /parameter length conflicts with the built-in function length/);
    assert.match(errorOf('import "time"\nparam time default "11:00"\nmain = rule { true }').message, /time is already declared/);
    assert.equal(run('import "strings"\nparam a default 1\nparam b default 2\nmain = rule { a + b is 3 }').result, true);
  });

  it('converts with int, float, string and bool exactly as the type conversion rules say (spec: Type Conversion)', () => {
    assert.deepEqual(value('[int("0x10"), int("010"), int("-12"), int("1.1"), int(" 5"), int(42.8), int(true)]'), [16, 8, -12, 1, undefined, 42, 1]);
    assert.deepEqual(value('[bool("T"), bool("True"), bool("FALSE"), bool("f"), bool("tRUE"), bool(" true"), bool("yes"), bool(-1), bool(0.0)]'), [
      true,
      true,
      false,
      false,
      undefined,
      undefined,
      undefined,
      true,
      false,
    ]);
    // "For any other unspecified type, the result is the undefined value."
    assert.deepEqual(value('[string(0xF), string(true), string(1.5), string(null), string([1]), string({"a": 1}), string(1e21)]'), [
      '15',
      'true',
      '1.500000',
      undefined,
      undefined,
      undefined,
      '1000000000000000000000.000000',
    ]);
  });

  it('fails append and delete on undefined (functions/append, functions/delete)', () => {
    assert.match(errorOf('append(undefined, 3)\nmain = rule { true }').message, /append: first argument must be a list, got undefined/);
    assert.match(errorOf('delete(undefined, "b")\nmain = rule { true }').message, /delete: first argument must be a map, got undefined/);
    assert.deepEqual(value('l', 'l = []\nappend(l, undefined)'), [undefined]);
  });

  it('makes a filter undefined when one iteration is, and reads a body that is not a bool as undefined (spec: Quantifier Expressions, Boolean Expressions)', () => {
    assert.deepEqual(value('[filter [1, 2] as v { v == 1 or undefined }, filter {"a": 1} as k { undefined }, filter [1] as v { 1 }]'), [
      undefined,
      undefined,
      undefined,
    ]);
    assert.deepEqual(value('[all [1] as v { "yes" }, any [1] as v { 1 }, filter [1, 2] as v { v > 1 }]'), [undefined, undefined, [2]]);
    assert.equal(value('r', 'r = rule when "yes" { true }'), undefined);
  });

  it('modifies the left-hand list of += in place (language/lists)', () => {
    assert.deepEqual(value('[a, b, c]', 'a = [1]\nb = a\na += [2]\nc = a + [3]'), [
      [1, 2],
      [1, 2],
      [1, 2, 3],
    ]);
  });

  it('refuses null as a map key and a rule whose result is not a bool, string, number, list or map (spec: Map Literals, language/rules)', () => {
    assert.match(errorOf('m = {null: 1}\nmain = rule { true }').message, /a map key cannot be null/);
    assert.match(errorOf('m = {}\nm[null] = 1\nmain = rule { true }').message, /a map key cannot be null/);
    assert.match(errorOf('main = rule { null }').message, /a rule's result must be a bool, string, int, float, list or map, got null/);
  });

  it('leaves a float division by zero to IEEE-754; an int one is an error (spec: Arithmetic Operators)', () => {
    const r = run('print(1.0 / 0, -1 / 0.0, 0.0 / 0)\nmain = rule { 1.0 / 0 > 1e308 }');
    assert.equal(r.result, true);
    assert.deepEqual(r.prints, ['+Inf -Inf NaN']);
    assert.match(errorOf('main = rule { 1 / 0 is 0 }').message, /division by zero/);
  });

  it("runs the functions and imports pages' examples", () => {
    const src = `
import "strings"
import "json"
import "version"
v = version.new("1.0.0-alpha.1+001")
checks = [
  strings.split(["foo", "bar", "baz"], ",") is ["foo", "bar", "baz"],
  json.valid("{ \\"foo\\": 42 }"), not json.valid("{"),
  json.marshal([1, undefined, {"a": undefined, "b": 2}]) is "[1,{\\"b\\":2}]",
  (json.marshal(undefined) else "undefined") is "undefined",
  v.gt("0.12.0-alpha.1+001"), not v.gte("1.0.1-alpha.1+001"), v.greater_than_or_equals("1.0.0-alpha.1+001"),
  v.lt("1.0.1-alpha.1+001"), v.less_than_or_equals("1.0.0-alpha.1+001"), not v.lte("0.12.0-alpha.1+001"),
  v.equals("1.0.0-alpha.1+001"), not v.eq("0.12.0-alpha.1+001"), version.new("0.12.0").cmp("1.0.0") is -1,
  version.new("0.12.7").sat("~> 0.12.0"),
]
main = rule { all checks as i, c { c } }`;
    const r = run(src);
    assert.equal(r.error, undefined, r.error?.message);
    assert.equal(r.result, true);
  });

  it('gives time its zone and nanoseconds (imports/time)', () => {
    const src = `
import "time"
t = time.load("2019-11-16T01:20:30Z")
z = time.load("2019-11-16T01:20:30-08:00")
checks = [
  z.zone is -28800, z.zone_string is "-08:00", z.hour is 1, z.unix is 1573896030, t.zone is 0, t.zone_string is "+00:00",
  t.add(time.nanosecond * 1).nanosecond is 1, t.add(time.microsecond).nanosecond is 1000, t.add(time.hour * 1).hour is 2,
  t.weekday is 6, t.weekday_name is "Saturday", t.unix is 1573867230,
  time.load("2019-11-16T04:20:30Z").add(t.sub("2019-11-16T04:20:30Z")).equal(t),
  t.after("2019-11-15T01:20:30Z"), not t.before("2019-11-15T01:20:30Z"), z.after(t),
]
main = rule { all checks as i, c { c } }`;
    const r = run(src);
    assert.equal(r.error, undefined, r.error?.message);
    assert.equal(r.result, true);
    assert.deepEqual(run('import "time"\nprint(time.load("2019-11-16T01:20:30Z").add(time.nanosecond))\nmain = rule { true }').prints, [
      '2019-11-16T01:20:30.000000001Z',
    ]);
  });

  it("has the decimal page's infinities, NaN, aliases and functions (imports/decimal)", () => {
    const src = `
import "decimal"
d = decimal.new(1.5)
checks = [
  decimal.infinity(1).string is "Infinity", decimal.inf(-1).string is "-Infinity", decimal.infinity(1).greater_than(1e300),
  not decimal.nan.is(decimal.nan), decimal.nan.is_not(decimal.nan), decimal.new(-1).sqrt().is_nan, decimal.new(0).mul(decimal.inf(1)).is_nan,
  not decimal.is_infinite(100), decimal.is_infinite("Infinity"), decimal.is_inf("-Infinity"), decimal.is_nan("NaN"), decimal.isnan("NaN"),
  decimal.new("1.1234E+400").string is "1.1234E+400", decimal.new(2.2).string is "2.2", decimal.new(3).string is "3",
  d.sub(1).string is "0.5", d.mul(2).string is "3.0", decimal.new(3.0).div(1.5).string is "2", d.mod(1).string is "0.5", d.rem(1).string is "0.5",
  d.power(2).string is "2.25", d.pow(-1).string is "0.6666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666667",
  strings.has_prefix(d.exp().string, "4.481689070338064822602055460119275819005749868369667056772650082785936674466713772981053831382453391"),
  strings.has_prefix(d.loge().string, "0.4054651081081643819780131154643491365719904234624941976140143241441006712489142512677524278173134012"),
  strings.has_prefix(d.ln().string, "0.4054"), strings.has_prefix(d.log10().string, "0.1760912590556812420812890085306222824319"),
  decimal.new(1000).log().string is "3", strings.has_prefix(d.square_root().string, "1.224744871391589049098642037352945695982973740328335064216346283625480188728657513269929716552320117"),
  decimal.new(2.25).sqrt().string is "1.5", d.ceiling().string is "2", d.ceil().string is "2", d.floor().string is "1",
  decimal.new(-1.5).floor().string is "-2", d.absolute().string is "1.5", decimal.new(-1.5).abs().string is "1.5",
  d.negate().string is "-1.5", decimal.new(-1.5).neg().string is "1.5", d.less_than_or_equals(1.5), d.greater_than_or_equals(1.5),
  decimal.new(1).divide(3).string is "0.3333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333",
]
main = rule { all checks as i, c { c } }`;
    const r = run(`import "strings"\n${src}`);
    assert.equal(r.error, undefined, r.error?.message);
    assert.equal(r.result, true);
  });
});
