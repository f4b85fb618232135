<?php
// The steps of grade/import/csv/index.php, as teach01:
//   upload: gradeimport_csv_load_data::load_csv_content(text, UTF-8, comma, 10 preview rows)
//   map:    Identify user by Username (column 0) -> username; column 2 -> the item; column 3 -> its feedback (or ignored)
//   import: prepare_import_grade_data(), then grade_import_commit() when it returns true.
// usage: php import.php FILE.csv [feedback|nofeedback]
define('CLI_SCRIPT', true);
require(getenv('MOODLE_DIR').'/config.php');
require_once($CFG->libdir.'/gradelib.php');
require_once($CFG->dirroot.'/grade/lib.php');
require_once($CFG->dirroot.'/grade/import/lib.php');
require_once($CFG->libdir.'/csvlib.class.php');
$file = $argv[1]; $withfeedback = ($argv[2] ?? 'feedback') === 'feedback';
$ids = json_decode(file_get_contents(getenv('SCRATCH').'/ids.json'), true);
\core\session\manager::set_user($DB->get_record('user', ['username'=>'teach01'], '*', MUST_EXIST));
$course = get_course($ids['course']);
$context = context_course::instance($course->id);
foreach (['moodle/grade:import','gradeimport/csv:view'] as $cap) echo "teach01 has $cap: ".(has_capability($cap,$context)?'yes':'no')."\n";
$load = new gradeimport_csv_load_data();
$load->load_csv_content(file_get_contents($file), 'UTF-8', 'comma', 10);
if ($err = $load->get_error()) { echo "upload refused: $err\n"; exit(1); }
echo "preview: ".json_encode($load->get_headers())." ".json_encode($load->get_previewdata())."\n";
$reader = new csv_import_reader($load->get_iid(), 'grade');
$form = (object)['mapfrom'=>0, 'mapto'=>getenv('MAPTO') ?: 'username', 'importcode'=>get_new_importcode(), 'forceimport'=>0,
    'verbosescales'=>1, 'id'=>$course->id, 'iid'=>$load->get_iid(), 'map'=>1, 'groupid'=>0,
    'mapping_0'=>'0', 'mapping_1'=>'0', 'mapping_2'=>getenv('ITEM') ?: (string)$ids['item'], 'mapping_3'=>$withfeedback ? 'feedback_'.$ids['item'] : '0'];
$separatemode = groups_get_course_groupmode($course) == SEPARATEGROUPS && !has_capability('moodle/site:accessallgroups', $context);
$import = new gradeimport_csv_load_data();
$ok = $import->prepare_import_grade_data($reader->get_columns(), $form, $reader, $course->id, $separatemode,
    groups_get_course_group($course), 1);
echo "prepare_import_grade_data: ".var_export($ok, true)."\n";
if (!$ok) { echo "errors shown to the teacher: ".json_encode($import->get_gradebookerrors())."\n"; exit(0); }
foreach ($DB->get_records('grade_import_values', ['importcode'=>$form->importcode], 'id') as $v)
    echo "  staged ".$DB->get_field('user','username',['id'=>$v->userid]).": finalgrade=".var_export($v->finalgrade, true)." feedback=".json_encode($v->feedback)."\n";
ob_start(); $r = grade_import_commit($course->id, $form->importcode); $out = ob_get_clean();
echo "grade_import_commit: ".var_export($r, true)."; page says: ".trim(preg_replace('/\s+/', ' ', strip_tags($out)))."\n";
