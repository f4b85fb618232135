<?php
// The gradebook of "Sudoku lab" per student, after a regrade (as opening the gradebook does), and its grade history.
define('CLI_SCRIPT', true);
require(getenv('MOODLE_DIR').'/config.php');
require_once($CFG->libdir.'/gradelib.php');
$ids = json_decode(file_get_contents(getenv('SCRATCH').'/ids.json'), true);
grade_regrade_final_grades($ids['course']);
$name = fn($id) => $DB->get_field('user','username',['id'=>$id]);
printf("%-8s %-11s %-10s %-24s %-11s %s\n", 'username','finalgrade','overridden','feedback','courseTotal','history');
$total = $DB->get_record('grade_items', ['courseid'=>$ids['course'],'itemtype'=>'course']);
foreach ($ids['users'] as $u => $uid) {
    if ($u === 'teach01') continue;
    $g = $DB->get_record('grade_grades', ['itemid'=>$ids['item'],'userid'=>$uid]);
    $t = $DB->get_record('grade_grades', ['itemid'=>$total->id,'userid'=>$uid]);
    printf("%-8s %-11s %-10s %-24s %-11s %d\n", $u, $g ? var_export($g->finalgrade, true) : '(no row)',
        $g ? $g->overridden : '-', $g ? json_encode($g->feedback) : '-', $t ? var_export($t->finalgrade, true) : '-',
        $DB->count_records('grade_grades_history', ['itemid'=>$ids['item'],'userid'=>$uid]));
}
echo "history of the item (id action source username finalgrade feedback loggeduser):\n";
foreach ($DB->get_records('grade_grades_history', ['itemid'=>$ids['item']], 'id') as $h)
    echo "  {$h->id} {$h->action} {$h->source} ".$name($h->userid)." ".var_export($h->finalgrade, true)." ".json_encode($h->feedback)." ".$name($h->loggeduser)."\n";
