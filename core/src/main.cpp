#include "app/cli.h"

int main(int argc, char** argv) { return gantry::app::main(argc, argv); }
