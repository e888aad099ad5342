// CSV outputs, one row per thing, every variant in one file (first column: variant):
//   transfers.csv  variant,name,from,to,bytes,start_s,end_s,fct_s,unloaded_s,slowdown,finished
//                  (finished false: cut short; the times it never reached are empty)
//   summary.csv    variant,metric,value   (the numbers of the console table, in SI units)
//   ports.csv      variant,from,to,priority,bytes,busy_s,utilisation,max_queue_bytes,
//                  pauses_received,paused_s,ecn_marks,mean_queue_bytes   (packet model: each port
//                  and class that carried traffic; utilisation and the time-average queue over
//                  makespan, the time simulated when the run was cut short; queues in wire bytes)
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
// queues.csv    variant,port,time_s,queue_bytes,paused,credit_stalled   (outputs.queues: each
//               chosen port's queue in wire bytes, all classes, and whether a class of it was
//               paused by PFC or waiting for credits, at each sample; paused, credit_stalled 0/1)
std::string queues_csv(const RunResult& result);

}  // namespace fabricsim::report
