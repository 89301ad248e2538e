# Comparing ftreport with trace-cmd report (sourced after t/tap.sh).

# report_same NAME FILE DIR: one test for each of the text, -N and -R:
# ftreport FILE prints, byte for byte, what trace-cmd report FILE prints
# (the outputs and ftreport's stderr kept in DIR).
report_same() {
	local name=$1 f=$2 d=$3 m
	for m in "" -N -R; do
		trace-cmd report $m "$f" > "$d/want" 2>/dev/null
		ftreport $m "$f" > "$d/got" 2> "$d/err"
		same_file "$name${m:+, $m}: ftreport prints what trace-cmd report prints" \
			"$d/want" "$d/got" "$d/err"
	done
}
