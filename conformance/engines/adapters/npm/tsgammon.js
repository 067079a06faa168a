#!/usr/bin/env node
// bgconf wrapper for tsgammon-core (npm, Apache-2.0), the rules library behind the tsgammon web
// game: it speaks the JSON-lines protocol of spec/protocol.md and answers every request with
// tsgammon-core's own code. Install and run (Node.js 20):
//
//     npm ci --prefix conformance/adapters/npm
//     bgconf run --engine tsgammon      (or --engine "cmd:node conformance/adapters/npm/tsgammon.js")
//
// tsgammon-core keeps the board from the mover's side: points[0] is the mover's bar, points[1..24]
// the points in the mover's direction of travel (the mover's own point p is index 25 - p, the
// opponent's own point q is index q), points[25] the opponent's bar; the mover's checkers are
// positive, the opponent's negative; borne-off counts travel beside the array.
//
// Kinds answered:
// - legal_plays: collectNodes(boardStateNodeFromArray(...)), the end-of-turn node of every play
//   tsgammon-core offers, one per resulting position, each answered as its moves (lastMoves(), as a
//   step list) when replaying them with movePiece reaches the node's board, else as the node's
//   board (board form); a single node with no move made is "no legal play" ([]).
// - play_check: the written moves applied one by one with tsgammon-core's BoardState.movePiece
//   (a move it refuses makes the play illegal); legal iff the result is one of its legal plays'.
// - game_result: the finished board from the winner's side, BoardState.eogStatus() and
//   EOGStatus.calcStake(cube value) (it has no Jacoby rule nor backgammon multiplier).
// - codec (gnubg_id): toPositionID and decodePositionIDtoArray; an id alone (decode) is refused
//   when decodePositionIDtoArray throws.
'use strict';

const readline = require('readline');

let tsg;
let version = 'not installed';
let loadError = null;
try {
  tsg = {
    ...require('tsgammon-core'),
    ...require('tsgammon-core/utils/collectNodes'),
    ...require('tsgammon-core/utils/toPositionID'),
    ...require('tsgammon-core/utils/decodePositionID'),
  };
  version = require('tsgammon-core/package.json').version;
} catch (err) {
  loadError = `tsgammon-core is not installed (${String(err.message).split('\n')[0]}): npm ci --prefix ${__dirname}`;
}

const PROTOCOL = 1;
const BAR = 25; // bgconf step lists: 25 = bar, 0 = off
const OFF = 0;

function other(side) {
  return side === 'x' ? 'o' : 'x';
}

// One side of the board form -> counts by its own point number (1..24), its bar and its off.
function sideCounts(side) {
  const points = new Array(25).fill(0);
  for (const [key, count] of Object.entries((side && side.points) || {})) {
    const p = Number(key);
    if (!Number.isInteger(p) || p < 1 || p > 24) throw new Error(`bad point ${key}`);
    points[p] = count;
  }
  return { points, bar: (side && side.bar) || 0, off: (side && side.off) || 0 };
}

// The board form -> tsgammon-core's array and borne-off pair, from `mover`'s side.
function toArray(position, mover) {
  const me = sideCounts(position[mover]);
  const them = sideCounts(position[other(mover)]);
  const pieces = new Array(26).fill(0);
  pieces[0] = me.bar;
  for (let p = 1; p <= 24; p++) {
    if (me.points[p]) pieces[25 - p] = me.points[p];
    if (them.points[p]) pieces[p] = -them.points[p];
  }
  pieces[25] = -them.bar;
  return { pieces, bornOffs: [me.off, them.off] };
}

// tsgammon-core's points and borne-off counts from `mover`'s side -> the board form, `onRoll` to play.
function fromPoints(points, myOff, oppOff, mover, onRoll) {
  const me = { points: {}, bar: points[0], off: myOff };
  const them = { points: {}, bar: -points[25], off: oppOff };
  for (let i = 1; i <= 24; i++) {
    if (points[i] > 0) me.points[String(25 - i)] = points[i];
    else if (points[i] < 0) them.points[String(i)] = -points[i];
  }
  return { on_roll: onRoll, [mover]: me, [other(mover)]: them };
}

function key(position) {
  const side = (s) => JSON.stringify([Object.entries(s.points).sort(), s.bar, s.off]);
  return `${position.on_roll}|x${side(position.x)}|o${side(position.o)}`;
}

function startNode(request) {
  const mover = request.position.on_roll;
  const { pieces, bornOffs } = toArray(request.position, mover);
  const [d1, d2] = request.dice;
  return { mover, node: tsg.boardStateNodeFromArray(pieces, d1, d2, bornOffs) };
}

function afterPlay(board, mover) {
  return fromPoints(board.points, board.myBornOff, board.opponentBornOff, mover, other(mover));
}

// A node's moves as a bgconf step list, when tsgammon-core's own movePiece, replaying them from
// the start, reaches the node's board; else null (the play is then answered as its position).
function stepsOf(start, n) {
  const moves = n.lastMoves();
  let board = start;
  for (const m of moves) board = board.movePiece(m.from, m.pip);
  if (JSON.stringify(board.points) !== JSON.stringify(n.board.points)) return null;
  return moves.map((m) => [m.from === 0 ? BAR : 25 - m.from, m.isBearOff ? OFF : 25 - m.to]);
}

// tsgammon-core's legal plays: Map of resulting-position key -> {position, steps}.
function legalPlays(request) {
  const { mover, node } = startNode(request);
  const nodes = tsg.collectNodes(node);
  const plays = new Map();
  if (nodes.length === 1 && nodes[0].lastMoves().length === 0) return plays;
  for (const n of nodes) {
    const position = afterPlay(n.board, mover);
    const k = key(position);
    if (!plays.has(k)) plays.set(k, { position, steps: stepsOf(node.board, n) });
  }
  return plays;
}

function playCheck(request) {
  const legal = legalPlays(request);
  const steps = request.steps || [];
  if (steps.length === 0) return { legal: legal.size === 0 };
  const { mover, node } = startNode(request);
  let board = node.board;
  for (const [from, to] of steps) {
    const index = from === BAR ? 0 : 25 - from;
    const pip = from === BAR ? 25 - to : from - to;
    const moved = board.movePiece(index, pip);
    if (moved === board) return { legal: false }; // tsgammon-core refuses the move
    board = moved;
  }
  return { legal: legal.has(key(afterPlay(board, mover))) };
}

function gameResult(request) {
  const position = request.position;
  const winners = ['x', 'o'].filter((s) => sideCounts(position[s]).off === 15);
  if (winners.length !== 1) throw new Error('the game is not over: no side has borne off 15 checkers');
  const winner = winners[0];
  const { pieces, bornOffs } = toArray(position, winner);
  const status = tsg.boardState(pieces, bornOffs).eogStatus();
  if (!status.isEndOfGame) throw new Error('tsgammon-core does not see the game as over');
  const cube = (request.cube && request.cube.value) || 1;
  return {
    winner,
    result: status.isBackgammon ? 'backgammon' : status.isGammon ? 'gammon' : 'single',
    points: status.calcStake(cube),
  };
}

function codec(request) {
  if (request.format !== 'gnubg_id') return { unsupported: `codec format ${request.format}` };
  if ('encode' in request) return { unsupported: 'tsgammon-core encodes a Position ID only from a position' };
  if ('decode' in request) {
    // an id alone, which a codec must refuse when it is malformed (spec/protocol.md, "Codecs"):
    // tsgammon-core's own decoder decides; its exception is its refusal
    let decoded;
    try {
      decoded = tsg.decodePositionIDtoArray(request.decode);
    } catch (err) {
      return { refused: null, message: `tsgammon-core: ${err && err.message ? err.message : err}` };
    }
    return { decoded: fromPoints(decoded.pos, decoded.myBornOff, decoded.oppBornOff, 'x', 'x') };
  }
  const mover = request.position.on_roll;
  const { pieces, bornOffs } = toArray(request.position, mover);
  const encoded = tsg.toPositionID(tsg.boardState(pieces, bornOffs));
  const decoded = tsg.decodePositionIDtoArray(request.gnubg_id);
  return {
    encoded,
    decoded: fromPoints(decoded.pos, decoded.myBornOff, decoded.oppBornOff, mover, mover),
  };
}

// No rule options are declared, so bgconf sends only cases at the standard rules.
function answer(request) {
  if (loadError) throw new Error(loadError);
  switch (request.kind) {
    case 'legal_plays':
      return { result: { plays: [...legalPlays(request).values()].map((p) => p.steps || p.position) } };
    case 'play_check':
      return { result: playCheck(request) };
    case 'game_result':
      return { result: gameResult(request) };
    case 'codec': {
      const out = codec(request);
      return out.unsupported ? out : { result: out };
    }
    default:
      return { unsupported: `tsgammon wrapper has no ${request.kind}` };
  }
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

function handle(message) {
  switch (message.cmd) {
    case 'start':
      send({
        protocol: PROTOCOL,
        engine: { name: 'tsgammon', version },
        capabilities: ['legal-plays', 'play-check', 'game-result', 'codec.gnubg'],
        rule_options: {},
        position_formats: ['board'],
      });
      return true;
    case 'run': {
      const { cmd, seq, ...request } = message;
      try {
        send({ seq, ...answer(request) });
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

main();
