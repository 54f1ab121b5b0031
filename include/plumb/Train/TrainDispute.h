//===- include/plumb/Train/TrainDispute.h - Two-level disputes -*- C++ -*-===//
//
// Part of Plumb. A dispute between two training runs of one training bundle
// (docs/training.md): phase 1 descends the parties' step trees to the first
// step whose claimed state differs (the state before it agreed, proved by
// Merkle proofs); both parties replay that step from their nearest
// checkpoint (the referee checks the checkpoint against the party's claimed
// state and the replayed state against the agreed one) with a node trace;
// phase 2 is the node dispute of Dispute/Referee.h on those two traces,
// which re-executes one node (or a slice of it).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TRAIN_TRAINDISPUTE_H
#define PLUMB_TRAIN_TRAINDISPUTE_H

#include "plumb/Dispute/Referee.h"
#include "plumb/Train/Trainer.h"

#include <string>
#include <vector>

namespace plumb {
namespace train {

struct TrainPartySpec {
  std::string name, dir;
  /// Testing aid (lie-state-hash=S): claim another state hash for step S
  /// and commit to the step tree that follows (a consistent liar).
  int64_t lieStep = -1;
};

struct TrainDisputeResult {
  /// Set when no dispute could be held; nobody is blamed.
  std::string error;
  bool rootsAgree = false;
  int64_t firstDivergentStep = -1;
  /// Step-tree rounds (both parties asked at once), requests and bytes of
  /// phase 1.
  int stepRounds = 0, stepMessages = 0;
  uint64_t stepBytes = 0;
  bool lost[2] = {false, false};
  std::string reasons[2];
  /// Phase 2 (held when both replays matched their claims).
  bool phase2 = false;
  dispute::DisputeResult node;
  /// The referee's own time in phase 1 (checking answers and checkpoints)
  /// plus phase 2's; one step's time (the honest replay of the step).
  double refereeMs = 0, stepMs = 0;
  std::vector<std::string> log;
  std::string names[2];
  std::string loser() const;
};

/// Parses a --behave value for a training party ("lie-state-hash=S").
bool parseTrainBehaviour(const std::string &spec, TrainPartySpec &p,
                         std::string &err);

TrainDisputeResult trainDispute(bundle::Bundle &b, const TrainingInfo &info,
                                const Dataset &data,
                                const TrainPartySpec parties[2]);

} // namespace train
} // namespace plumb

#endif // PLUMB_TRAIN_TRAINDISPUTE_H
