// libedit's readline interface: line editing and history for `lumenctl shell`.
#include <stdio.h>
#include <editline/readline.h>
