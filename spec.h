// The spec strings, a small language of their own that every app and library user can read:
// models ("article", "lenet5", "cnn", "mlp:784-512-10"), data ("fashion-mnist", "csv:PATH:
// label=y", "npy:X,Y", "images:DIR", "article"), optimizers ("momentum", "adamw") and schedules
// ("warmup:200+cosine"). Each builds the objects of <kiln/kiln.h>.
#pragma once

#include "kiln/spec/data_spec.h"
#include "kiln/spec/model_spec.h"
#include "kiln/spec/optimizer_spec.h"
#include "kiln/spec/schedule_spec.h"
