#!/bin/sh
# tests/vm/guest/progress-demo.sh DEV - issue 14: our erase and sanitize progress lines on a
# real terminal. Run by guest/init on the console (ttyS0, a tty) instead of the scenarios when
# run.sh is given HDPARM_RS_VM_DEMO=this file; tests/vm/progress-demo.sh shows it in tmux.
mkdir -p /dev/pts; mount -t devpts devpts /dev/pts 2>/dev/null
DEV=$1
H=/opt/hdparm-rs/hdparm
M=/opt/drive-model/drive-model
echo "@@ demo on $DEV: stderr is $(readlink /proc/self/fd/2)"
# the model's ERASE UNIT answers after 15 s (its IDENTIFY word 89 says 122 min)
$M ctl fault delay 0xf4 15 > /dev/null
echo "@@ hdparm --security-set-pass abc $DEV"
$H --security-set-pass abc "$DEV"
echo "@@ hdparm --security-erase abc $DEV"
$H --security-erase abc "$DEV"
echo "@@ exit $?"
$M ctl fault clear > /dev/null
# a sanitize that lasts 12 status queries (about 12 s of --wait's 1 s polls)
$M ctl set sanitize_steps=12 > /dev/null
echo "@@ hdparm --yes-i-know-what-i-am-doing --sanitize-block-erase $DEV"
$H --yes-i-know-what-i-am-doing --sanitize-block-erase "$DEV"
echo "@@ hdparm --sanitize-status --wait $DEV"
$H --sanitize-status --wait "$DEV"
echo "@@ exit $?"
echo "@@ demo done"
sleep 2
