import { EnvironmentError } from '../../../core/errors/environment-error.js';
import { defineGymnasiumServer } from '../define-gymnasium-server.js';
import type { ResourcesServerDefinition } from '../resources-server-definition.js';
import { actionText } from '../response-text.js';

/** Card ranks, drawn with replacement (an infinite shoe), as NeMo Gym's `rng.choice(_RANKS)`. */
export const BLACKJACK_RANKS = ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A'] as const;
export type BlackjackRank = (typeof BLACKJACK_RANKS)[number];

interface Hand {
  player: BlackjackRank[];
  dealer: BlackjackRank[];
  /** Uniform in [0, 1); one per episode, so an injected source replays a game exactly. */
  random: () => number;
}

export interface BlackjackOptions {
  /** A new episode's random source (default `Math.random`; NeMo Gym seeds nothing either). */
  newRandom?: () => () => number;
}

/** Aces count 11 until the hand would bust, then 1 each as needed. */
export function handValue(hand: readonly BlackjackRank[]): number {
  let total = hand.reduce((sum, rank) => sum + (rank === 'A' ? 11 : ['J', 'Q', 'K'].includes(rank) ? 10 : Number(rank)), 0);
  for (let aces = hand.filter((rank) => rank === 'A').length; total > 21 && aces > 0; aces -= 1) total -= 10;
  return total;
}

const format = (hand: readonly BlackjackRank[]) => `[${hand.join(', ')}]`;
const deal = (hand: Hand) => BLACKJACK_RANKS[Math.min(BLACKJACK_RANKS.length - 1, Math.floor(hand.random() * BLACKJACK_RANKS.length))]!;
const prompt = (hand: Hand) =>
  `Your hand: ${format(hand.player)} = ${handValue(hand.player)}\nDealer shows: ${hand.dealer[0]}\nRespond with <action>hit</action> or <action>stand</action>.`;

const name = 'blackjack';

/**
 * NeMo Gym's `blackjack` (`BlackjackEnv`): reset deals two cards each and shows the dealer's first;
 * each step reads `<action>hit|stand</action>` (anything else stands). A hit over 21 is a bust (−1);
 * standing plays the dealer to 17 and scores +1 win, 0 draw, −1 loss. `info` says how it ended.
 */
export function blackjack(options: BlackjackOptions = {}): ResourcesServerDefinition {
  const newRandom = options.newRandom ?? (() => Math.random);
  return defineGymnasiumServer<Hand | undefined>({
    name,
    className: 'BlackjackEnv',
    reset: (_body, session) => {
      const hand: Hand = { player: [], dealer: [], random: newRandom() };
      hand.player.push(deal(hand), deal(hand));
      hand.dealer.push(deal(hand), deal(hand));
      session.state = hand;
      return { observation: prompt(hand), info: {} };
    },
    step: (body, session) => {
      const hand = session.state;
      // NeMo Gym plays on with empty hands here and fails on the dealer's card; say so instead.
      if (!hand) throw new EnvironmentError(name, 'step before reset: this session has no hand dealt');
      const decision = /<action>\s*(hit|stand)\s*<\/action>/i.exec(actionText(body.response))?.[1]?.toLowerCase() ?? 'stand';
      if (decision === 'hit') {
        hand.player.push(deal(hand));
        const value = handValue(hand.player);
        if (value > 21) return { observation: null, reward: -1, terminated: true, info: { result: 'bust', player: format(hand.player), value } };
        return { observation: prompt(hand), reward: 0, terminated: false, info: {} };
      }
      while (handValue(hand.dealer) < 17) hand.dealer.push(deal(hand));
      const [playerValue, dealerValue] = [handValue(hand.player), handValue(hand.dealer)];
      const [reward, result] = dealerValue > 21 || playerValue > dealerValue ? [1, 'win'] : playerValue === dealerValue ? [0, 'draw'] : [-1, 'loss'];
      return {
        observation: null,
        reward,
        terminated: true,
        info: { result, player: format(hand.player), player_value: playerValue, dealer: format(hand.dealer), dealer_value: dealerValue },
      };
    },
  });
}
