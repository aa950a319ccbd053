"""The one view loop (client_web/src/ui/loop.js), run by Node: a message reduces the state; only a change runs
the effects and then the render, each given the states before and after; a message that changes nothing runs
neither; an effect that feeds a message back sees the new state, and nothing older is painted after it."""

from __future__ import annotations

from .node import node_json

SCRIPT = """
import('./src/ui/loop.js').then(({ loop }) => {
  const calls = [];
  const view = loop({
    initial: { n: 0 },
    reduce: (s, msg) => (msg.t === 'add' ? { n: s.n + msg.by } : s),
    effects: (before, after, msg) => {
      calls.push(['effects', before.n, after.n, msg.t]);
      if (after.n === 3) view.update({ t: 'add', by: 10 });
    },
    render: (after, before) => calls.push(['render', before.n, after.n]),
  });
  view.update({ t: 'noop' });
  view.update({ t: 'add', by: 1 });
  view.update({ t: 'add', by: 2 });
  process.stdout.write(JSON.stringify({ calls, state: view.state() }));
});
"""


def test_a_change_runs_effects_then_render_and_no_change_runs_neither() -> None:
    out = node_json(SCRIPT)
    assert out["calls"] == [
        ["effects", 0, 1, "add"],
        ["render", 0, 1],
        ["effects", 1, 3, "add"],
        ["effects", 3, 13, "add"],  # fed back from the effect: it sees the state after the first change
        ["render", 3, 13],  # and the pass that fed it paints nothing older after it
    ]
    assert out["state"] == {"n": 13}


QUIET = """
import('./src/ui/loop.js').then(({ loop }) => {
  const calls = [];
  const view = loop({
    initial: { route: null, n: 0 },
    reduce: (s, msg) => (msg.t === 'mount' ? { route: msg.route, n: 0 } : { ...s, n: s.n + 1 }),
    effects: (before, after) => calls.push(['effects', after.route, after.n]),
    render: (after) => calls.push(['render', after.route, after.n]),
    quiet: (msg) => msg.t === 'mount',
  });
  view.update({ t: 'mount', route: 'a' });
  view.update({ t: 'tick' });
  process.stdout.write(JSON.stringify({ calls, state: view.state() }));
});
"""


def test_a_quiet_message_changes_the_state_and_runs_neither_effects_nor_render() -> None:
    out = node_json(QUIET)
    assert out["calls"] == [["effects", "a", 1], ["render", "a", 1]]
    assert out["state"] == {"route": "a", "n": 1}
