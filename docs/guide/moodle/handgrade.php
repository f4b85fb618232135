<?php
// teach01 types 20 for bob01 in the grader report (grade_report_grader::process_data, as its index.php does with the posted form).
define('CLI_SCRIPT', true);
require(getenv('MOODLE_DIR').'/config.php');
require_once($CFG->libdir.'/gradelib.php');
require_once($CFG->dirroot.'/grade/lib.php');
require_once($CFG->dirroot.'/grade/report/grader/lib.php');
$ids = json_decode(file_get_contents(getenv('SCRATCH').'/ids.json'), true);
\core\session\manager::set_user($DB->get_record('user', ['username'=>'teach01'], '*', MUST_EXIST));
$course = get_course($ids['course']);
$context = context_course::instance($course->id);
$gpr = new grade_plugin_return(['type'=>'report','plugin'=>'grader','course'=>$course,'page'=>0]);
$report = new grade_report_grader($course->id, $gpr, $context, 0);
$data = (object)['timepageload'=>time(), 'grade'=>[$ids['users']['bob01'] => [$ids['item'] => '20']]];
echo "warnings: ".json_encode($report->process_data($data))."\n";
