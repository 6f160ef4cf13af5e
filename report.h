// What renders a run's reports (report/): EpochReport, the figures of one epoch; their text (the
// one-line summary, the stage table, the JSON log line); their scalars for TensorBoard; and the
// HTML run report with its inline SVG charts, on the HTML pieces kiln's pages share. Rendering
// only: the observers that write them while a Trainer runs are in training/.
#pragma once

#include "kiln/report/epoch_report.h"
#include "kiln/report/epoch_scalars.h"
#include "kiln/report/html.h"
#include "kiln/report/report_format.h"
#include "kiln/report/run_report_page.h"
#include "kiln/report/svg_chart.h"
