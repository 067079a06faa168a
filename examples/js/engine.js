#!/usr/bin/env node
// bgconf-example-js: a small backgammon movement engine speaking the bgconf
// JSON-lines protocol (spec/protocol.md). Node.js 20, no dependencies:
//
//     bgconf run --engine "cmd:node examples/js/engine.js"
//
// It is written from spec/rules.md, sections 1-5; comments name the anchors.
// It answers the kinds legal_plays, play_check and apply_play; every other
// kind is "unsupported".
'use strict';

const readline = require('readline');

const IDENTITY = { name: 'bgconf-example-js', version: '1.0.0' };
const PROTOCOL = 1;
const BAR = 25; // bar = 25, off = 0 in step lists (rules.md "Conventions")
const OFF = 0;
const CHECKERS = 15; // board.checkers

// ---------------------------------------------------------------------------
// Board model.
//
// A Board is the position seen from the side on roll ("the mover"), all in the
// MOVER's numbering (board.points):
//   me[p]   mover's checkers on point p (1..24); me[25] = mover's bar
//   opp[p]  opponent's checkers on the point the mover calls p (1..24)
//   oppBar  opponent's checkers on its bar
// The opponent's point q (its own numbering) is the mover's point 25 - q.
// Borne-off counts are derived: 15 minus what is on the board and bar.
// ---------------------------------------------------------------------------

function sideFromWire(side) {
  const points = new Array(26).fill(0);
  for (const [key, count] of Object.entries((side && side.points) || {})) {
    const p = Number(key);
    if (!Number.isInteger(p) || p < 1 || p > 24) throw new Error(`bad point ${key}`);
    if (!Number.isInteger(count) || count < 0) throw new Error(`bad count on point ${key}`);
    points[p] += count;
  }
  points[BAR] = (side && side.bar) || 0;
  return points;
}

function fromWire(position) {
  const mover = position.on_roll;
  if (mover !== 'x' && mover !== 'o') throw new Error(`bad on_roll ${JSON.stringify(mover)}`);
  const other = mover === 'x' ? 'o' : 'x';
  const me = sideFromWire(position[mover]);
  const theirs = sideFromWire(position[other]); // in the opponent's own numbering
  const opp = new Array(26).fill(0);
  for (let q = 1; q <= 24; q++) opp[25 - q] = theirs[q];
  return { mover, other, me, opp, oppBar: theirs[BAR] };
}

function copyBoard(b) {
  return { mover: b.mover, other: b.other, me: b.me.slice(), opp: b.opp.slice(), oppBar: b.oppBar };
}

function inPlay(points) {
  let n = 0;
  for (let p = 1; p <= 25; p++) n += points[p];
  return n;
}

function sideToWire(points) {
  const out = {};
  for (let p = 24; p >= 1; p--) if (points[p] > 0) out[String(p)] = points[p];
  return { points: out, bar: points[BAR], off: CHECKERS - inPlay(points) };
}

// The board form after the play: the other side is on roll (move.pass: the
// turn passes), each side written in its own numbering (format.board).
function toWireAfterPlay(b) {
  const theirs = new Array(26).fill(0);
  for (let p = 1; p <= 24; p++) theirs[25 - p] = b.opp[p];
  theirs[BAR] = b.oppBar;
  return { on_roll: b.other, [b.mover]: sideToWire(b.me), [b.other]: sideToWire(theirs) };
}

// Identity of a resulting position (move.same-play): every point, both bars,
// and (implicitly) the off counts.
function boardKey(b) {
  return b.me.join(',') + '|' + b.opp.join(',') + '|' + b.oppBar;
}

// ---------------------------------------------------------------------------
// Single moves: one checker moved by one die.
// ---------------------------------------------------------------------------

// bearoff.all-home: nothing on the bar and nothing on points 7..24.
function allHome(b) {
  for (let p = 7; p <= 25; p++) if (b.me[p] > 0) return false;
  return true;
}

// Where a checker on `from` lands with die `d`, or null if the move is not
// allowed. Off is returned as OFF (0).
function target(b, from, d) {
  if (b.me[from] === 0) return null;
  // bar.enter-first: while any checker is on the bar, only the bar may move.
  if (b.me[BAR] > 0 && from !== BAR) return null;
  // bar.entry-point: die d enters on the mover's point 25 - d.
  // move.direction: otherwise exactly d points towards lower numbers.
  const to = from === BAR ? BAR - d : from - d;
  if (to >= 1) {
    // move.open-point / bar.closed-board: never onto 2+ opposing checkers.
    return b.opp[to] >= 2 ? null : to;
  }
  if (!allHome(b)) return null; // bearoff.all-home (re-tested before each die)
  if (to === 0) return OFF; // bearoff.exact
  // bearoff.higher-die: a larger die bears off only from the highest point.
  for (let p = from + 1; p <= 6; p++) if (b.me[p] > 0) return null;
  return OFF;
}

// Play one step on a copy of the board; a lone opposing checker on the landing
// point is hit and goes to its owner's bar (hit.blot, hit.intermediate).
function step(b, from, to) {
  const n = copyBoard(b);
  n.me[from] -= 1;
  if (to !== OFF) {
    if (n.opp[to] === 1) {
      n.opp[to] = 0;
      n.oppBar += 1;
    }
    n.me[to] += 1;
  }
  return n;
}

// ---------------------------------------------------------------------------
// Legal plays.
// ---------------------------------------------------------------------------

// Every maximal sequence of single moves for the dice taken in the order given.
// A sequence stops when the next die cannot be played (move.pass) or when the
// mover has nothing left in play (bearoff.last-checker: the game is over).
// Each result is { board, steps, dice } where dice lists the dice used.
function sequences(b, order) {
  const out = [];
  // The same board after the same dice always continues the same way, so each
  // (dice used, board) state is explored once; this keeps doubles fast.
  const visited = new Set();
  const walk = (board, i, steps, used) => {
    const state = i + ':' + boardKey(board);
    if (visited.has(state)) return;
    visited.add(state);
    let moved = false;
    if (i < order.length && inPlay(board.me) > 0) {
      const d = order[i];
      for (let from = BAR; from >= 1; from--) {
        const to = target(board, from, d);
        if (to === null) continue;
        moved = true;
        walk(step(board, from, to), i + 1, steps.concat([[from, to]]), used.concat([d]));
      }
    }
    if (!moved) out.push({ board, steps, dice: used });
  };
  walk(b, 0, [], []);
  return out;
}

// The legal plays for a roll: one entry per distinct resulting position.
function legalPlays(b, dice) {
  const [a, c] = dice;
  if (![a, c].every((d) => Number.isInteger(d) && d >= 1 && d <= 6)) {
    throw new Error(`bad dice ${JSON.stringify(dice)}`);
  }
  // move.doubles: four moves of the number; move.separate-dice: otherwise the
  // two dice one after the other, in either order.
  const orders = a === c ? [[a, a, a, a]] : [[a, c], [c, a]];
  let all = [];
  for (const order of orders) all = all.concat(sequences(b, order));

  // move.maximum-dice: only sequences using as many dice as possible.
  const most = Math.max(...all.map((s) => s.dice.length));
  let kept = all.filter((s) => s.dice.length === most);

  // move.larger-die: when only one die of a non-double can be used, the larger
  // one if it is playable at all, otherwise the one that is.
  if (a !== c && most === 1) {
    const larger = Math.max(a, c);
    if (kept.some((s) => s.dice[0] === larger)) kept = kept.filter((s) => s.dice[0] === larger);
  }

  // move.pass: nothing playable means no play (an empty set).
  if (most === 0) return [];

  // move.same-play: one play per resulting position.
  const seen = new Map();
  for (const s of kept) {
    const key = boardKey(s.board);
    if (!seen.has(key)) seen.set(key, s);
  }
  return [...seen.values()];
}

// ---------------------------------------------------------------------------
// Written plays (play_check, apply_play).
//
// A written move `from/to` may span several dice (13/5 with 5-3); only its
// written points are landings, and a point left unwritten is passed over
// without a hit (format.notation). Applying one only checks the physical facts:
// a checker of the mover stands on `from`, it moves forward, and it does not
// land on a point held by two or more opposing checkers.
// ---------------------------------------------------------------------------

function applyWritten(b, steps) {
  let board = b;
  for (const s of steps || []) {
    if (!Array.isArray(s) || s.length !== 2) throw new Error(`bad step ${JSON.stringify(s)}`);
    const [from, to] = s;
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 1 || from > 25 || to < 0 || to > 24) {
      return { error: `step ${from}/${to} is outside the board` };
    }
    if (board.me[from] === 0) return { error: `no checker on ${from === BAR ? 'the bar' : from}` };
    if (to >= from) return { error: `${from}/${to} moves backwards` };
    if (to !== OFF && board.opp[to] >= 2) return { error: `point ${to} is closed` };
    board = step(board, from, to);
  }
  return { board };
}

// play_check: legal iff the written play reaches the same position as one of
// the legal plays (move.same-play). "none" (no steps) is legal iff no play is.
function playCheck(req) {
  const b = fromWire(req.position);
  const plays = legalPlays(b, req.dice);
  const applied = applyWritten(b, req.steps);
  if (applied.error) return { legal: false };
  if (plays.length === 0) return { legal: (req.steps || []).length === 0 };
  const key = boardKey(applied.board);
  return { legal: plays.some((p) => boardKey(p.board) === key) };
}

function applyPlay(req) {
  const b = fromWire(req.position);
  const applied = applyWritten(b, req.steps);
  if (applied.error) throw new Error(`cannot apply ${JSON.stringify(req.play)}: ${applied.error}`);
  return { position: toWireAfterPlay(applied.board) };
}

function legalPlaysResult(req) {
  const b = fromWire(req.position);
  return { plays: legalPlays(b, req.dice).map((p) => p.steps) };
}

const KINDS = {
  legal_plays: legalPlaysResult,
  play_check: playCheck,
  apply_play: applyPlay,
};

// ---------------------------------------------------------------------------
// Protocol (spec/protocol.md): one JSON object per line each way.
// ---------------------------------------------------------------------------

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function handle(message) {
  switch (message.cmd) {
    case 'start':
      send({
        protocol: PROTOCOL,
        engine: IDENTITY,
        capabilities: ['legal-plays', 'play-check', 'apply-play'],
        rule_options: {}, // every option at its default value only
        position_formats: ['board'],
      });
      return true;
    case 'run': {
      const seq = message.seq;
      const answer = KINDS[message.kind];
      if (!answer) {
        send({ seq, unsupported: `${IDENTITY.name} does not answer ${message.kind}` });
        return true;
      }
      try {
        send({ seq, result: answer(message) });
      } catch (err) {
        send({ seq, errored: String((err && err.message) || err) });
      }
      return true;
    }
    case 'stop':
      return false;
    default:
      send({ seq: message.seq === undefined ? null : message.seq, errored: `unknown cmd ${JSON.stringify(message.cmd)}` });
      return true;
  }
}

function main() {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on('line', (line) => {
    if (!line.trim()) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch (err) {
      send({ seq: null, errored: `not JSON: ${line.slice(0, 120)}` });
      return;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      send({ seq: null, errored: 'a message must be a JSON object' });
      return;
    }
    if (!handle(message)) {
      rl.close();
      process.exit(0);
    }
  });
  rl.on('close', () => process.exit(0));
}

if (require.main === module) main();

module.exports = { fromWire, legalPlays, applyWritten, playCheck, applyPlay, toWireAfterPlay };
