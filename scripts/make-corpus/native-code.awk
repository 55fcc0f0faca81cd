# Keeps the "Native code for ..." sections of Mesa's INTEL_DEBUG output (stderr) and drops
# the rest (NIR printouts, driver messages). A section runs from its "Native code for" line
# to the first blank line that is not followed by a label ("LABEL3:"; Mesa's disassembly
# puts a blank line before each label), and that blank line is kept, as in the shared
# corpora's asm.txt files.
pending && /^LABEL[0-9]+:$/ { print ""; pending = 0; print; next }
pending { print ""; pending = 0; p = 0 }
/^Native code for / { p = 1 }
p && /^$/ { pending = 1; next }
p { print }
END { if (pending) print "" }
