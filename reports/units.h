// Human-readable numbers: decimal SI units (GB = 1e9, TB/s = 1e12 B/s), 3 significant figures.
#pragma once
#include <string>

namespace rooftop::reports {

std::string sig(double v, int digits = 3);        // 3 significant figures, thousands unseparated: "1.68", "14300"
std::string bytes(double b);                      // "141 GB", "46.1 kB", "512 B"
std::string bytes_exact(double b);                // "327,680 B"
std::string kib(double b);                        // "45 KiB" (the seeds' unit for KV per token)
std::string rate_bytes(double bytes_per_s);       // "3.35 TB/s"
std::string flops(double f);                      // "989 TFLOP"
std::string flops_rate(double f);                 // "989 TFLOP/s"
std::string seconds(double s);                    // "20.9 ms", "1.2 s", "350 µs"
std::string count(double n);                      // "70.6B", "134.5M", "4096"
std::string usd(double v);                        // "$15.0", "$0.057"
std::string grouped(long long n);                 // "327,680"

}  // namespace rooftop::reports
