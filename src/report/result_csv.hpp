// CSV outputs, one row per thing, every variant in one file (first column: variant):
//   transfers.csv  variant,name,from,to,bytes,start_s,end_s,fct_s,unloaded_s,slowdown,finished
//                  (finished false: cut short; the times it never reached are empty)
//   summary.csv    variant,metric,value   (the numbers of the console table, in SI units)
//   ports.csv      variant,from,to,priority,bytes,busy_s,utilisation,max_queue_bytes,
//                  pauses_received,paused_s,ecn_marks   (packet model: each port that carried traffic;
//                  utilisation over makespan, the time simulated when the run was cut short)
#pragma once

#include "report/run_result.hpp"

#include <string>

namespace fabricsim::report {

std::string transfers_csv(const RunResult& result);
std::string summary_csv(const RunResult& result);
std::string ports_csv(const RunResult& result);
// qp_rates.csv  variant,qp,time_s,rate_bps,ccti   (outputs.qp_rates: each QP's DCQCN or IB CC
//               rate over time; ccti, IB CC's table index, empty under DCQCN)
std::string qp_rates_csv(const RunResult& result);

}  // namespace fabricsim::report
