// rooftop: entry point; all work happens in cli::run.
#include <iostream>

#include "cli/cli.h"

int main(int argc, char** argv) { return rooftop::cli::run(argc, argv, std::cout, std::cerr); }
